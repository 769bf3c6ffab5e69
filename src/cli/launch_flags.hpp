#pragma once
// The launch settings `run` and `bench` share, registered once so both commands take them alike.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <zcuda/detect/profile.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/runtime.hpp>

#include "command.hpp"

namespace zcuda::cli {

// Commands that take a program (prefix commands, fallthrough off) accept these global flags
// between their name and APP too.
struct InlineGlobals {
  bool json = false;
  bool quiet = false;
  std::optional<std::filesystem::path> home;
};
void add_inline_globals(CLI::App& sub, InlineGlobals& globals, const std::string& json_help);
Status apply_inline_globals(const InlineGlobals& globals, Context& context);

// Which runtime run, stage and warmup use: --runtime-dir DIR, or --runtime NAME (an installed
// version or an adopted one, zcuda install --adopt); neither: the installed `current` one.
struct RuntimeFlags {
  std::optional<std::filesystem::path> dir;
  std::optional<std::string> name;
  bool given() const { return dir || name; }
};
void add_runtime_flags(CLI::App& sub, RuntimeFlags& flags, const std::string& dir_help);
Result<launch::RuntimeLocation> locate_chosen_runtime(const RuntimeFlags& flags, const home::Home& home);

struct LaunchFlags {
  std::optional<std::filesystem::path> hip_path;
  std::optional<std::filesystem::path> libtorch;
  std::optional<std::string> gfx;
  std::optional<std::string> device;
  std::optional<std::string> zluda_cc;
  bool no_stage = false;
  bool direct = false;
  bool ld_audit = false;
  bool no_detect = false;
  bool no_tf32_override = false;
  std::optional<std::string> profile;  // --profile NAME (or none); unset: recognised from APP (app_launch.hpp)
};

void add_launch_flags(CLI::App& sub, LaunchFlags& flags);

// Detection as a launch uses it (file probes only; GPU names too when `names`), unless --no-detect.
detect::Profile detect_unless_told_not_to(const LaunchFlags& flags, bool names = false);

// The launch options of APP ARGS with these flags, what detection found filling the gaps.
launch::Options launch_options(const LaunchFlags& flags, const std::string& program, std::vector<std::string> args, const detect::Profile& detected);

// Splits what follows the command's options into APP and ARGS; a usage error for an option of
// zcuda's given after APP's place, or for no APP.
Result<std::vector<std::string>> program_and_args(std::vector<std::string> rest, const std::string& command);

}  // namespace zcuda::cli
