#include "app_launch.hpp"

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/detect/detect.hpp>
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
  AppLaunch app{*match, apps::setup_for(*match, options.os, machine_facts(detected))};
  return std::optional(std::move(app));
}

void apply_app(const AppLaunch& app, launch::Options& options, bool runtime_given) {
  options.settings.insert(options.settings.end(), app.setup.settings.begin(), app.setup.settings.end());
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

}  // namespace zcuda::cli
