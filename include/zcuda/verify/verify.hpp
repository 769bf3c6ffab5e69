#pragma once
// zcuda verify: runs zcuda-probe once per check, each in its own process with a timeout, against
// a chosen CUDA runtime (an installed ZLUDA, a folder, or the system's), and gathers the results.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/home/home.hpp>
#include <zcuda/launch/launcher_encoding.hpp>
#include <zcuda/launch/load_dialogs.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/platform/runtime_launch.hpp>

namespace zcuda::verify {

struct CheckSpec {
  std::string name;   // stable: "driver.kernel"
  bool core;          // decides the exit code and the ladder's "functional" (docs/verify.md)
  std::string group;  // checks of one group load the same libraries and may share a probe process; "" = alone
  bool exclusive;     // measures time or bandwidth: runs alone, never beside another probe
  std::string summary;
};

// Every check zcuda-probe knows, in the order they are shown (the probe's --list has the same
// names, core flags and groups).
const std::vector<CheckSpec>& checks();
const CheckSpec* find_check(std::string_view name);

// One probe process: its checks run in order. Exclusive checks are units of their own.
struct Unit {
  std::vector<const CheckSpec*> checks;
  bool exclusive = false;
};

// The default schedule for the selected checks (in table order): every exclusive check alone,
// first, one after another; then one unit per group (and per ungrouped check), largest first,
// `--jobs` at a time. zcuda-probe --plan prints the same for all checks (a test holds them equal).
std::vector<Unit> schedule(const std::vector<const CheckSpec*>& selected);

// Which CUDA libraries are tested.
// The installed ZLUDA, a folder given with --runtime-dir, or the system's own CUDA.
enum class RuntimeKind { zluda, folder, native };
std::string_view to_string(RuntimeKind kind);  // "zluda" | "dir" | "native", as results store it
std::optional<RuntimeKind> runtime_kind_from(std::string_view text);

struct Runtime {
  RuntimeKind kind = RuntimeKind::native;
  std::optional<std::filesystem::path> dir;
  std::string version;    // the installed ZLUDA's version, when kind is "zluda"
  std::string chosen_by;  // why this runtime: "--runtime-dir", "installed ZLUDA", ...
  bool operator==(const Runtime&) const = default;
};

// `runtime` is "auto", "native", "zluda" or the name of an installed version or adopted runtime
// (zcuda install --adopt). auto: the installed ZLUDA (home's installs/zluda/current
// names its version folder) when there is one, else the system's CUDA.
Result<Runtime> resolve_runtime(const std::optional<std::filesystem::path>& runtime_dir, std::string_view runtime, const home::Home& home);

// Which ZLUDA the runtime is (an installed one's digests from its receipt); none for the system's CUDA.
std::optional<family::Identity> runtime_family(const Runtime& runtime);

struct LibraryFile {
  std::string role;       // "driver", "cublas", ...
  std::string requested;  // "libcublas.so.13"
  std::string path;       // as the loader named it
  std::string real_path;  // links resolved
  std::optional<std::uint64_t> size;
  std::string sha256;  // of real_path, computed by zcuda; empty when it could not be read
  bool operator==(const LibraryFile&) const = default;
};

// How a check ended. zcuda-probe reports the first five; crash and timeout come from how its
// process ended. The words (to_string) are what the probe prints and results store.
enum class CheckStatus { pass, fail, unsupported, missing, error, crash, timeout };
std::string_view to_string(CheckStatus status);
std::optional<CheckStatus> check_status_from(std::string_view word);
// Counts by status as a person reads them: "9 pass, 1 fail" (in the enum's order).
std::string tally(const std::map<CheckStatus, int>& counts);

struct CheckResult {
  std::string name;
  bool core = false;
  CheckStatus status = CheckStatus::error;
  std::string detail;
  std::string stack = "unknown";
  std::string device;
  std::vector<LibraryFile> libraries;
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json error;        // {"api","code","name"} or null
  double seconds = 0;          // the probe process, start to end; the check's own time when it shared one
  std::string exit;            // how the probe process ended (describe_exit)
  std::string stderr_tail;     // kept when the check did not pass
  std::string shared_process;  // the group whose process it ran in, "" when it ran alone
  bool operator==(const CheckResult&) const = default;
};

// Turns one finished probe process into a result. Pure: the unit tests feed it made-up results.
CheckResult interpret(const CheckSpec& spec, const platform::ProcessResult& process, std::chrono::seconds timeout);

// A unit of several checks, finished. Every check that reported gets its result; a crash or
// hang is charged to the check that was running, and the checks after it are handed back to
// run again, each alone (`rerun_alone`), so each keeps the isolation it would have had. When
// the probe stopped after a failure (a failed call can leave a CUDA context unusable), the
// rest go back as one unit (`rerun_together`).
struct UnitOutcome {
  std::vector<CheckResult> results;
  std::vector<const CheckSpec*> rerun_together;
  std::vector<const CheckSpec*> rerun_alone;
};
UnitOutcome interpret_unit(const std::vector<const CheckSpec*>& unit, const platform::ProcessResult& process, std::chrono::seconds timeout);

// zcuda-probe's exit code when its per-check watchdog ended a hung check of a unit.
inline constexpr int kProbeWatchdogExit = 124;

// ZLUDA's cuda_check only loads each library and creates a handle: shown, labelled load-only.
struct CudaCheck {
  std::filesystem::path program;
  std::string outcome;  // "exit code 0", "timed out", ...
  std::vector<std::string> lines;
  bool operator==(const CudaCheck&) const = default;
};

struct Options {
  std::vector<std::string> checks;  // empty: all, in table order
  std::chrono::seconds timeout{60};
  int jobs = 4;  // probes at once (exclusive checks still run alone)
  Runtime runtime;
  std::filesystem::path probe;
  // How the runtime's zluda.exe passes arguments (launch/launcher.hpp), when probes go through it.
  std::optional<launch::LauncherJoin> launcher_join;
  // ZLUDA's "failed to load" dialogs detection predicts for this runtime (launch/load_dialogs.hpp):
  // the checks of those roles are not started (a probe would wait on the dialog until killed)
  // and are reported missing, saying why.
  std::vector<launch::LoadDialog> load_dialogs;
};

struct Report {
  std::string started_utc;
  Runtime runtime;
  // Which ZLUDA the runtime is (docs/families.md); none for the system's CUDA.
  std::optional<family::Identity> runtime_family;
  platform::LaunchMethod launch_method = platform::LaunchMethod::system;
  std::filesystem::path probe;
  std::chrono::seconds timeout{0};
  int jobs = 1;
  bool explicit_selection = false;  // --check given: every selected check counts
  std::vector<CheckResult> checks;
  std::optional<CudaCheck> cuda_check;
  double seconds = 0;
  // Whether an application bench with an output check has passed on this machine: the only
  // evidence for the ladder's top level. verify cannot know it; whoever can sets it.
  bool application_verified = false;

  std::string stack() const;  // the first check that knew it
  std::string device() const;
  // Exit code 0 when every counted check passed: the core checks, or all selected with --check.
  bool passed() const;
  // The evidence ladder's level for these results (src/core/verify/ladder.cpp).
  nlohmann::json level_json() const;
  bool operator==(const Report&) const = default;
};

// What the results add up to, counted over the checks that decide the exit code (the core
// checks, or every selected one with --check), the others apart.
struct Summary {
  bool explicit_selection = false;  // counted: the selected checks, else the core checks
  int counted = 0;
  int counted_passed = 0;
  std::map<CheckStatus, int> statuses;  // of the counted checks
  std::map<CheckStatus, int> others;    // of the checks that do not count
  bool passed = true;
};
Summary summarize(const Report& report);

// The results' one JSON form: what --json prints and what is saved, read back by `zcuda report`
// (zcuda/base/record.hpp). stack, device and summary are written for readers and derived again
// when read.
void to_json(nlohmann::json& out, const Report& report);
void from_json(const nlohmann::json& in, Report& report);

// Runs the checks, then digests every library file they reported. Fails only when the probe
// cannot be started at all; a check that crashes or hangs is a result.
Result<Report> run(const Options& options);

// Writes <state>/verify/last.json and a timestamped copy; returns the copy's path.
Result<std::filesystem::path> save(const Report& report, const home::Home& home);
// The last saved results; nothing when verify has not been run; ErrorKind::invalid_input when
// the file is not verify results.
Result<std::optional<Report>> load_last(const home::Home& home);

}  // namespace zcuda::verify
