#pragma once
// What zcuda knows about one zluda.exe: how it joins its target's arguments, learned once by
// running it on an argument-echo target (zcuda-probe with ZCUDA_PROBE_ECHO_ARGV=1) and kept in
// <home state>/launchers/<sha256 of zluda.exe>.json. Every launch through zluda.exe (run, bench,
// verify's probes) encodes its arguments by what is kept here.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/launcher_encoding.hpp>

namespace zcuda::launch {

inline constexpr int kLauncherRecordSchema = 1;

// The variable that turns zcuda-probe into an echo of its argv. A variable, not a flag: a flag
// would itself go through the joining being learned.
inline constexpr const char* kEchoArgvVariable = "ZCUDA_PROBE_ECHO_ARGV";

struct LauncherRecord {
  std::string sha256;  // of zluda.exe
  LauncherJoin join = LauncherJoin::quoting;
  std::string learned_utc;
  std::string zcuda_version;
  std::vector<std::string> sent;      // the echo target's arguments as given to zluda.exe
  std::vector<std::string> received;  // as the echo target printed them
  bool operator==(const LauncherRecord&) const = default;
};

void to_json(nlohmann::json& out, const LauncherRecord& record);
void from_json(const nlohmann::json& in, LauncherRecord& record);

std::filesystem::path launcher_record_path(const std::filesystem::path& state_dir, const std::string& sha256);

// Parses the echo target's output: the arguments of its line {"echo_argv":[...]}; none when no
// such line was printed (the target did not start).
std::optional<std::vector<std::string>> parse_echo_output(std::string_view out);

// Runs zluda.exe once on `echo_program` and classifies what arrived. Errors say when the launcher
// ended without starting the target, and when no known join explains what arrived.
Result<LauncherRecord> learn_launcher(const std::filesystem::path& zluda_exe, const std::filesystem::path& echo_program);

// The join of this zluda.exe: the record kept under `state_dir` for its digest, else learned
// now (and kept, when `state_dir` is given).
Result<LauncherJoin> known_launcher_join(const std::filesystem::path& zluda_exe, const std::filesystem::path& echo_program,
                                         const std::optional<std::filesystem::path>& state_dir);

// zluda.exe's whole argument list: `flags` (e.g. --zluda-trace), "--", then the program and its
// arguments encoded for `join` (launcher_arguments).
Result<std::vector<std::string>> launcher_command(LauncherJoin join, const std::vector<std::string>& flags, std::string_view program,
                                                  const std::vector<std::string>& args);

// The join of `runtime_dir`'s zluda.exe when launches go through it (Windows, and the folder has
// one); none otherwise. The echo target is the zcuda-probe beside zcuda.
Result<std::optional<LauncherJoin>> launcher_join_for_runtime(const std::filesystem::path& runtime_dir,
                                                              const std::optional<std::filesystem::path>& state_dir,
                                                              platform::Os os = platform::current_os());

// For a launch that goes through zluda.exe (Windows, not --direct, the runtime has one): sets
// options.launcher_join from the record or by learning with the zcuda-probe beside zcuda. Does
// nothing otherwise. `state_dir`: where records are kept (none: learned, not kept).
Status learn_launcher_join(Options& options, const std::optional<std::filesystem::path>& state_dir);

}  // namespace zcuda::launch
