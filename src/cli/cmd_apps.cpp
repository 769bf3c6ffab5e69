// zcuda apps: the application profiles, and which one a folder or program matches, and why.
#include <fmt/format.h>

#include <zcuda/apps/profile.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/backends/native_venv.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/ui/table.hpp>

#include "app_launch.hpp"
#include "command.hpp"
#include "native_advice.hpp"

namespace zcuda::cli {

namespace {

struct AppsOptions {
  std::vector<std::string> command;  // a folder, or a program and its arguments
  std::optional<std::filesystem::path> runtime_dir;
  NativeFlags native;
};

// What was given: a folder or file as it is, else a program name found on PATH (`python`).
Result<apps::Given> given_of(const AppsOptions& o) {
  const std::filesystem::path first = path_from_utf8(o.command.front());
  std::error_code ec;
  apps::Given given{first, {o.command.begin() + 1, o.command.end()}, platform::current_os(), false};
  if (std::filesystem::exists(first, ec)) return given;
  auto program = launch::resolve_program(first, platform::current_environment(), platform::current_os());
  if (!program || !std::filesystem::exists(*program, ec)) {
    return fail(ErrorKind::not_found, fmt::format("{} does not exist", o.command.front()),
                "Give an application's folder, its program, or a command (zcuda apps -- python main.py).");
  }
  given.app = *program;
  return given;
}

CommandOutput list_profiles(const std::vector<apps::Profile>& profiles, const Context& context) {
  CommandOutput out;
  out.json["profiles"] = nlohmann::json::array();
  ui::Table table({"PROFILE", "FAMILY", "LAUNCH", "RECOGNISED BY"});
  for (const auto& p : profiles) {
    out.json["profiles"].push_back(apps::to_json(p));
    std::vector<std::string> markers;
    for (const auto& m : p.recognise) markers.push_back(m.why);
    table.add_row({context.style.bold(p.name), std::string(family::to_string(p.family)), std::string(apps::to_string(p.launch)),
                   fmt::format("{}", fmt::join(markers, "; "))});
  }
  out.text = table.render() + "\n'zcuda apps PATH' says which profile a folder or program matches; 'zcuda run --profile NAME' picks one.\n";
  return out;
}

// ZLUDA's folder for the Steam line: --runtime-dir, the installed runtime, or a placeholder.
std::filesystem::path runtime_for_line(const AppsOptions& o, const Context& context) {
  if (auto found = launch::locate_runtime(o.runtime_dir, context.home)) return found->dir;
  return path_from_utf8("C:\\path\\to\\ZLUDA");
}

std::string describe_match(const apps::Match& match, const apps::Setup& setup, const std::optional<std::string>& steam, const Context& context) {
  const auto& style = context.style;
  std::string text = style.bold(fmt::format("{} ({})", match.profile.name, match.profile.title)) + "\n";
  text += fmt::format("  folder:     {}\n", path_to_utf8(match.root));
  for (const auto& why : match.why) text += fmt::format("  because:    {}\n", why);
  text += fmt::format("  family:     {} ZLUDA{}\n", family::to_string(match.profile.family), setup.native_rocm ? " (not used: native ROCm)" : "");
  if (setup.native_rocm) text += style.green("  backend:    ") + *setup.native_rocm + "\n";
  if (match.torch) {
    const std::string built_for = match.torch->hip ? "HIP " + *match.torch->hip : "CUDA " + match.torch->cuda.value_or("none");
    text += fmt::format("  torch:      {} ({}) in {}, found by {}\n", match.torch->version.value_or("?"), built_for,
                        path_to_utf8(match.torch->package), match.torch->found_by);
  }
  if (setup.app_runtime) text += fmt::format("  runtime:    the application's own, {}\n", path_to_utf8(*setup.app_runtime));
  if (setup.app_runtime_missing) text += style.yellow("  runtime:    ") + *setup.app_runtime_missing + "; zcuda run would use another\n";
  if (!setup.stage) {
    text += "  placement:  none (the application loads ZLUDA itself, or needs nothing placed)\n";
  } else if (setup.place_into) {
    text += fmt::format("  placement:  into {} (journaled; zcuda unstage restores it)\n", path_to_utf8(*setup.place_into));
    for (const auto& n : setup.names) {
      text += fmt::format("              {} as {}{}\n", n.from, n.to,
                          n.keep_original_as ? fmt::format(" (the original kept as {})", *n.keep_original_as) : "");
    }
  } else {
    text += "  placement:  the program's folder, as zcuda stage does, when it loads CUDA libraries\n";
  }
  if (match.profile.compute_capability) {
    text += fmt::format("  sets:       ZLUDA_CC={} unless you set ZLUDA_CC or ZLUDA_SM  # {}\n", *match.profile.compute_capability,
                        match.profile.compute_capability_why);
  }
  text += fmt::format("  launch:     {}\n", setup.direct ? "the program itself (--direct), no ZLUDA launcher" : "through ZLUDA's launcher");
  for (const auto& s : setup.settings) text += fmt::format("  sets:       {}={}  # {}\n", s.name, s.value, s.why);
  for (const auto& s : setup.skipped) text += fmt::format("  skips:      {}\n", s);
  for (const auto& k : setup.kernels) text += fmt::format("  kernels:    {} (zcuda warmup)\n", path_to_utf8(k));
  text += fmt::format("  check:      {}\n", apps::to_string(match.profile.check));
  if (steam) text += fmt::format("  Steam:      set the game's launch options to:\n              {}\n", *steam);
  if (setup.flavour_problem) text += style.yellow("  problem:    ") + *setup.flavour_problem + "\n";
  for (const auto& n : setup.notes) text += fmt::format("  note:       {}\n", n);
  for (const auto& n : match.profile.launch_notes) {
    if (!n.os || *n.os == platform::current_os()) {
      text += fmt::format("  note:       ({}) {}\n", n.zluda_exe ? "through zluda.exe" : "without zluda.exe", n.note);
    }
  }
  return text;
}

}  // namespace

CommandRun setup_apps(CLI::App& sub) {
  auto o = std::make_shared<AppsOptions>();
  sub.add_option("PATH", o->command,
                 "A folder, or a program with its arguments (after '--' when they look like options): say which profile it matches, and why");
  add_path_option(sub, "--runtime-dir", o->runtime_dir, "ZLUDA folder for the lines printed (default: the installed runtime)");
  sub.add_option("--gfx", o->native.gfx, "GPU target to advise for (e.g. gfx1100; default: the AMD GPUs detected)");
  auto* setup_flag =
      add_path_option(sub, "--setup-native", o->native.setup,
                      "Make a ROCm PyTorch venv in this new folder: python -m venv, then pip from the backends data's index for the GPU "
                      "(docs/backends.md); the application's own venv is left alone");
  auto* undo = add_path_option(sub, "--undo-native", o->native.undo, "Remove a venv --setup-native made (its undo record must be inside)");
  setup_flag->excludes(undo);
  add_path_option(sub, "--python", o->native.python,
                  "With --setup-native: the Python that makes the venv (default: the one the application's venv was made from, else python3)");
  sub.add_option("--index-url", o->native.index_url,
                 std::string("With --setup-native: the pip index instead of the data's (also the variable ") + backends::kIndexUrlVariable + ")");
  sub.footer("Profiles are data: the embedded manifests/app-profiles.json, and your own in <home>/app-profiles.json (docs/apps.md).");
  return [o](Context& context) -> Result<CommandOutput> {
    if (o->native.undo) return undo_native(o->native, context);
    auto profiles = load_profiles(context);
    if (!profiles) return std::unexpected(profiles.error());
    if (o->native.setup) {
      std::optional<apps::Match> match;
      if (!o->command.empty()) {
        auto given = given_of(*o);
        if (!given) return std::unexpected(given.error());
        const apps::Recognition found = apps::recognise(*profiles, *given);
        if (!found.matches.empty()) match = found.matches.front();
      }
      return setup_native(o->native, match, context);
    }
    if (o->command.empty()) return list_profiles(*profiles, context);
    // Inspecting reads files only: the folder's interpreter is never run (it is the folder's code).
    auto given = given_of(*o);
    if (!given) return std::unexpected(given.error());
    const apps::Recognition recognition = apps::recognise(*profiles, *given);
    CommandOutput out;
    out.json = apps::to_json(recognition);
    nlohmann::json setups = nlohmann::json::array();
    std::string text;
    const auto runtime = runtime_for_line(*o, context);
    // Which backend serves the GPU: advice for a ZLUDA-based PyTorch application (native_advice.hpp).
    std::optional<NativeAdvice> native;
    for (std::size_t i = 0; i < recognition.matches.size(); ++i) {
      const auto& match = recognition.matches[i];
      const apps::Setup setup = apps::setup_for(match, platform::current_os(), {});
      const auto steam = apps::steam_launch_option(match.profile, runtime);
      nlohmann::json s = apps::to_json(setup);
      s["steam_launch_option"] = steam ? nlohmann::json(*steam) : nlohmann::json(nullptr);
      setups.push_back(s);
      text += (i == 0 ? context.style.green("Matches ") : "Also matches ") + describe_match(match, setup, steam, context) + "\n";
      // Detection only for a PyTorch application on ZLUDA (a CUDA torch), the one the advice is for.
      if (i == 0 && match.torch && match.torch->cuda && !setup.native_rocm) {
        if (const auto advice = gpu_advice(o->native)) native = advise_native(match, setup, *advice, o->native, context);
      }
    }
    out.json["setups"] = setups;
    out.json["native_rocm_advice"] = native ? native->json : nlohmann::json(nullptr);
    if (native) text += native->text + "\n";
    if (recognition.matches.empty()) {
      text += fmt::format("{} matches no profile: zcuda run treats it as a plain program.\n", path_to_utf8(given->app));
      out.exit_code = 1;
    } else {
      text += fmt::format("zcuda run uses {}; --profile NAME picks another, --profile none none.\n", recognition.matches.front().profile.name);
    }
    text += context.style.dim("Not matched:") + "\n";
    for (const auto& miss : recognition.misses) text += "  " + miss + "\n";
    out.text = text;
    return out;
  };
}

}  // namespace zcuda::cli
