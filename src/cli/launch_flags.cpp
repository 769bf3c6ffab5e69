#include "launch_flags.hpp"

#include <fmt/format.h>

#include <zcuda/launch/detected.hpp>

namespace zcuda::cli {

void add_inline_globals(CLI::App& sub, InlineGlobals& g, const std::string& json_help) {
  sub.add_flag("--json", g.json, json_help);
  sub.add_flag("-q,--quiet", g.quiet, "Show only errors");
  add_path_option(sub, "--home", g.home, "Folder for everything zcuda writes (as the global --home)");
}

Status apply_inline_globals(const InlineGlobals& g, Context& context) {
  if (g.json) context.options.json = true;
  if (g.quiet) context.options.quiet = true;
  if (g.home) {
    auto home = home::resolve_home(g.home);
    if (!home) return std::unexpected(home.error());
    context.home = *home;
    context.home_usable = home::create_home_folders(context.home).has_value();
  }
  return {};
}

void add_launch_flags(CLI::App& sub, LaunchFlags& f) {
  sub.add_flag("--no-stage", f.no_stage, "Do not stage the program's folder before launching");
  sub.add_flag("--direct", f.direct, "Windows: launch the program itself, not through zluda.exe");
  sub.add_flag("--ld-audit", f.ld_audit,
               "Linux: load ZLUDA through LD_AUDIT (its zluda_ld, ZLUDA's alternative method) instead of LD_LIBRARY_PATH (its recommended one)");
  sub.add_option("--zluda-cc", f.zluda_cc,
                 "Compute capability ZLUDA reports: sets ZLUDA_CC, which upstream reads since v6-preview.63 (default: the runtime family's own; your "
                 "ZLUDA_CC or ZLUDA_SM is never overridden)");
  sub.add_option("--gfx", f.gfx, "GPU architecture (e.g. gfx1200): use its own rocBLAS/hipBLASLt kernel folders");
  sub.add_option("--device", f.device,
                 "HIP device to use (sets HIP_VISIBLE_DEVICES; default: the discrete GPU when an integrated one is enumerated first)");
  sub.add_flag("--no-tf32-override", f.no_tf32_override,
               "Do not set TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (keep FP32 matrix products in FP32, e.g. when checking FP32 results)");
  sub.add_flag("--no-detect", f.no_detect, "Do not consult detection for --device, --gfx, --hip-path and MIOpen");
  add_path_option(sub, "--hip-path", f.hip_path, "HIP SDK / ROCm folder (default: HIP_PATH, then ROCm's)");
  sub.add_option("--profile", f.profile,
                 "Application profile to launch with (zcuda apps lists them; default: the one APP matches; none: no profile)");
  add_path_option(sub, "--libtorch", f.libtorch,
                  "LibTorch folder: its libraries are found first (Linux: lib/ on LD_LIBRARY_PATH; Windows: lib/ and bin/ on PATH)");
}

detect::Profile detect_unless_told_not_to(const LaunchFlags& flags, bool names) {
  return flags.no_detect ? detect::Profile{} : launch::detect_for_launch(names);
}

launch::Options launch_options(const LaunchFlags& f, const std::string& program, std::vector<std::string> args, const detect::Profile& detected) {
  launch::Options options;
  options.program = path_from_utf8(program);
  options.args = std::move(args);
  options.hip_path = f.hip_path;
  options.libtorch = f.libtorch;
  options.zluda_cc = f.zluda_cc;
  options.gfx = f.gfx;
  options.device = f.device;
  options.direct = f.direct;
  options.ld_audit = f.ld_audit;
  options.tf32_override = !f.no_tf32_override;
  // Detection fills what the user did not set: the discrete GPU when an integrated one comes
  // first, its gfx for the kernel folders, the HIP SDK / ROCm root.
  launch::apply_detected(options, launch::settings_from_profile(detected));
  return options;
}

Result<std::vector<std::string>> program_and_args(std::vector<std::string> rest, const std::string& command) {
  const std::string usage = fmt::format("Usage: zcuda {} [OPTIONS] [--] APP [ARGS...]", command);
  if (!rest.empty() && rest.front() == "--") {
    rest.erase(rest.begin());
  } else if (!rest.empty() && rest.front().size() > 1 && rest.front().front() == '-') {
    return fail(ErrorKind::usage, fmt::format("'{}' is not an option of zcuda {}", rest.front(), command),
                fmt::format("Options of zcuda {} go before APP (global ones such as -v before '{}'); if the program's name starts "
                            "with '-', write: zcuda {} -- APP.",
                            command, command, command));
  }
  if (rest.empty()) return fail(ErrorKind::usage, fmt::format("zcuda {} needs a program to run", command), usage);
  return rest;
}

void add_runtime_flags(CLI::App& sub, RuntimeFlags& flags, const std::string& dir_help) {
  auto* dir = add_path_option(sub, "--runtime-dir", flags.dir, dir_help);
  auto* name = sub.add_option("--runtime", flags.name, "An installed ZLUDA version or an adopted runtime by name (zcuda install --list)");
  dir->excludes(name);
}

Result<launch::RuntimeLocation> locate_chosen_runtime(const RuntimeFlags& flags, const home::Home& home) {
  if (!flags.name) return launch::locate_runtime(flags.dir, home);
  auto located = launch::locate_runtime_spec(*flags.name, home);
  if (!located) return std::unexpected(located.error());
  if (!*located) return fail(ErrorKind::usage, "--runtime native means no ZLUDA; this command needs one", "Name an installed or adopted ZLUDA.");
  return **located;
}

}  // namespace zcuda::cli
