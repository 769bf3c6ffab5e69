#include "app_launch.hpp"

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/io_error.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/stage/catalogue.hpp>

namespace zcuda::cli {

namespace fs = std::filesystem;

Result<std::vector<apps::Profile>> load_profiles(const Context& context) {
  return apps::load(context.home_usable || fs::exists(apps::user_file(context.home.root)) ? std::optional(apps::user_file(context.home.root))
                                                                                          : std::nullopt);
}

apps::MachineFacts machine_facts(const detect::Profile& launch_detection) {
  apps::MachineFacts facts;
  detect::Profile detected = launch_detection;
  // The HIP SDK's hipBLASLt has kernels for one of the machine's GPUs (read only now: a launch
  // that matches no profile never reads the kernel files).
  detect::add_kernel_support(detected);
  if (const detect::HipInstall* hip = detected.selected_hip()) {
    facts.hipblaslt_kernels = std::any_of(hip->kernels.begin(), hip->kernels.end(), [](const auto& k) { return k.second.hipblaslt; });
  }
  return facts;
}

Result<std::optional<AppLaunch>> app_for_launch(const std::optional<std::string>& profile_flag, const launch::Options& options,
                                                const detect::Profile& detected, const Context& context, bool will_launch) {
  if (profile_flag == "none") return std::optional<AppLaunch>();
  auto profiles = load_profiles(context);
  if (!profiles) return std::unexpected(profiles.error());
  const apps::Profile* forced = nullptr;
  if (profile_flag) {
    forced = apps::find(*profiles, *profile_flag);
    if (!forced) {
      std::vector<std::string> names;
      for (const auto& p : *profiles) names.push_back(p.name);
      return fail(ErrorKind::usage, fmt::format("there is no application profile called \"{}\"", *profile_flag),
                  fmt::format("The profiles are: {} (zcuda apps lists them), or none.", fmt::join(names, ", ")));
    }
  }
  auto program = launch::resolve_program(options.program, platform::current_environment(), options.os);
  if (!program) return std::unexpected(program.error());
  apps::Given given{*program, options.args, options.os, will_launch};
  const apps::Recognition recognition = apps::recognise(*profiles, given);
  std::optional<apps::Match> match;
  if (forced) {
    match = apps::forced_match(*forced, recognition);
  } else if (!recognition.matches.empty()) {
    match = recognition.matches.front();
  }
  if (!match) return std::optional<AppLaunch>();
  // The application starts with zcuda's environment and --env's, in zcuda's working folder.
  apps::MachineFacts facts = machine_facts(detected);
  facts.environment = platform::current_environment();
  for (const auto& [name, value] : options.overrides) (*facts.environment)[name] = value;
  AppLaunch app{*match, apps::setup_for(*match, options.os, facts)};
  return std::optional(std::move(app));
}

namespace {

// The user's own ZLUDA_CC or ZLUDA_SM (environment or --env): a profile's capability never overrides it.
bool user_sets_cc(const launch::Options& options) {
  const auto env = platform::current_environment();
  for (const char* name : {"ZLUDA_CC", "ZLUDA_SM"}) {
    auto same = [&](const std::string& key) { return options.os == platform::Os::windows ? ascii_iequals(key, name) : key == name; };
    for (const auto& [key, value] : env) {
      if (same(key) && !value.empty()) return true;
    }
    for (const auto& [key, value] : options.overrides) {
      if (same(key) && !value.empty()) return true;
    }
  }
  return false;
}

}  // namespace

void apply_app(const AppLaunch& app, launch::Options& options, bool runtime_given) {
  options.settings.insert(options.settings.end(), app.setup.settings.begin(), app.setup.settings.end());
  // The profile's compute capability (Blender: 8.5), as --zluda-cc would set it; --zluda-cc and
  // the user's own variables come first.
  if (const auto& cc = app.match.profile.compute_capability; cc && !options.zluda_cc && !user_sets_cc(options)) {
    options.zluda_cc = *cc;
    options.zluda_cc_from = "profile " + app.match.profile.name;
  }
  if (app.setup.direct) options.direct = true;
  // A torch/lib an installer patched holds ZLUDA files the process loads: one family only.
  if (app.match.torch) options.library_folders.push_back(app.match.torch->lib);
  if (app.setup.place_into) options.library_folders.push_back(*app.setup.place_into);
  if (!runtime_given && app.setup.app_runtime) {
    options.runtime = launch::RuntimeLocation{*app.setup.app_runtime, launch::RuntimeChoice::folder, std::nullopt};
  }
}

std::optional<stage::PlanOptions> placement_for_app(const AppLaunch& app, platform::Os os, const detect::Profile& detected) {
  if (!app.setup.stage || !app.setup.place_into) return std::nullopt;
  stage::PlanOptions options;
  options.app = *app.setup.place_into;
  options.os = os;
  options.backends = stage::backends_from_detection(detected);
  options.names = app.setup.names;
  return options;
}

Result<std::optional<stage::HeldStage>> place_for_app(const AppLaunch& app, const fs::path& runtime_dir, platform::Os os,
                                                      const detect::Profile& detected) {
  auto options = placement_for_app(app, os, detected);
  if (!options) return std::optional<stage::HeldStage>();
  options->runtime_dir = runtime_dir;
  auto staged = stage::stage_and_hold(*options);
  if (!staged) {
    return std::unexpected(
        std::move(staged.error())
            .with_note(fmt::format("profile {}: placing into {}; the program was not started", app.setup.profile, *app.setup.place_into)));
  }
  return std::optional(std::move(*staged));
}

std::vector<std::string> app_notices(const AppLaunch& app) {
  std::vector<std::string> out;
  out.push_back(fmt::format("profile {} ({}): {}", app.match.profile.name, app.match.profile.title, fmt::join(app.match.why, "; ")));
  for (const auto& n : app.setup.notes) out.push_back(fmt::format("profile {}: {}", app.match.profile.name, n));
  return out;
}

std::vector<std::string> app_launch_notes(const AppLaunch& app, const launch::LaunchPlan& plan, platform::Os os) {
  std::vector<std::string> out;
  const std::string& name = app.match.profile.name;
  std::vector<std::string> zcuda_sets;
  for (const auto& change : plan.changes) {
    const bool profiles_own = std::any_of(app.setup.settings.begin(), app.setup.settings.end(), [&](const auto& s) { return s.name == change.name; });
    if (!profiles_own && !change.removed) zcuda_sets.push_back(change.name);
  }
  if (!zcuda_sets.empty()) {
    out.push_back(fmt::format("profile {}: besides the profile's variables, zcuda sets {} for this launch (run --print-env says why)", name,
                              fmt::join(zcuda_sets, ", ")));
  }
  for (const auto& n : app.match.profile.launch_notes) {
    if (n.zluda_exe == plan.through_launcher && (!n.os || *n.os == os)) out.push_back(fmt::format("profile {}: {}", name, n.note));
  }
  // Never another runtime silently: the application's own was looked for and is not there.
  if (app.setup.app_runtime_missing) {
    out.push_back(fmt::format("profile {}: {}; this launch uses {}", name, *app.setup.app_runtime_missing, plan.runtime_dir));
  }
  const auto& drop = app.match.profile.drops_path;
  for (const auto& change : plan.changes) {
    if (!drop || change.removed || !(os == platform::Os::windows ? ascii_iequals(change.name, "PATH") : change.name == "PATH")) continue;
    const auto dropped = apps::dropped_path_entries(app.match.profile, change.after, os);
    if (dropped.empty()) continue;
    out.push_back(fmt::format("profile {}: {}; a library loaded after that is not found through: {}", name, drop->why, fmt::join(dropped, "; ")));
  }
  return out;
}

Status add_attention_hook(const AppLaunch& app, launch::Options& options, const Context& context) {
  const auto& attention = app.match.profile.attention;
  if (!attention || !attention->by_hook || attention->off.empty()) return {};
  auto script = knowledge::find("sdp-hook.py");
  if (!script) return fail(ErrorKind::internal, "this zcuda was built without its attention hook (manifests/sdp-hook.py)");
  std::error_code ec;
  const fs::path dir = (context.home_usable ? context.home.state / "apps" : fs::temp_directory_path(ec) / "zcuda-apps") / "attention-hook";
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected(io_error("create folder", dir, ec));
  if (auto written = platform::write_file_atomic(dir / "sitecustomize.py", *script); !written) return std::unexpected(written.error());
  const std::string name = app.match.profile.name;
  std::string python_path = path_to_utf8(dir);
  for (const auto& [key, value] : platform::current_environment()) {
    const bool same = options.os == platform::Os::windows ? ascii_iequals(key, "PYTHONPATH") : key == "PYTHONPATH";
    if (same && !value.empty()) python_path += (options.os == platform::Os::windows ? ";" : ":") + value;
  }
  options.settings.push_back(
      {"PYTHONPATH", python_path, fmt::format("profile {}: zcuda's attention hook (sitecustomize.py) goes first, so Python runs it at start", name)});
  options.settings.push_back({"ZCUDA_SDP_OFF", fmt::format("{}", fmt::join(attention->off, ",")),
                              fmt::format("profile {}: the attention backends the hook turns off once torch is imported: {}", name, attention->why)});
  return {};
}

void mirror_app_attention(const AppLaunch& app, launch::Options& options) {
  const auto& attention = app.match.profile.attention;
  if (!attention || attention->by_hook || attention->off.empty()) return;
  options.settings.push_back({"ZCUDA_CHECK_SDP_OFF", fmt::format("{}", fmt::join(attention->off, ",")),
                              fmt::format("the torch check turns these attention backends off as the application does: {}", attention->why)});
}

void mirror_app_loader(const AppLaunch& app, launch::Options& options) {
  const auto& loader = app.match.profile.check_loader;
  if (!loader) return;
  const std::string name = app.match.profile.name;
  options.settings.push_back({"ZCUDA_CHECK_LOADER", *loader, fmt::format("the torch check runs {}'s own ZLUDA loader before importing torch", name)});
  options.settings.push_back({"ZCUDA_CHECK_APP_ROOT", path_to_utf8(app.match.root), "the folder the loader's modules are imported from"});
  if (app.setup.app_runtime && app.match.profile.runtime_variable) {
    options.settings.push_back({*app.match.profile.runtime_variable, path_to_utf8(*app.setup.app_runtime),
                                fmt::format("the ZLUDA folder {} finds (as an absolute path, for the check's working folder)", name)});
  }
}

}  // namespace zcuda::cli
