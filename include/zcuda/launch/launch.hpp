#pragma once
// `zcuda run`: the environment a program needs to run through ZLUDA and how it is launched (the
// record kept of each run: run_record.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/launch/launcher_encoding.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::launch {

// A variable set on behalf of something other than zcuda's own rules (an application profile),
// with its reason; applied before --env, which overrides it.
struct Setting {
  std::string name;
  std::string value;
  std::string why;
};

struct Options {
  std::filesystem::path program;  // as the user gave it
  std::vector<std::string> args;  // passed exactly
  RuntimeLocation runtime;
  std::optional<std::filesystem::path> hip_path;  // --hip-path; else HIP_PATH; else ROCm's root
  std::optional<std::filesystem::path> libtorch;  // --libtorch
  // --zluda-cc: set ZLUDA_CC; unset: the family's own default, or the user's ZLUDA_CC/ZLUDA_SM.
  std::optional<std::string> zluda_cc;
  std::optional<std::string> zluda_cc_from;  // who asks for zluda_cc when not --zluda-cc ("profile blender: ...")
  std::optional<std::string> gfx;            // --gfx: selects per-gfx kernel folders
  std::optional<std::string> device;         // --device: HIP_VISIBLE_DEVICES
  std::vector<Setting> settings;             // a profile's, before the overrides
  // Other folders the program loads CUDA libraries from (a profile's torch/lib), for the
  // mixed-family check.
  std::vector<std::filesystem::path> library_folders;
  std::vector<std::pair<std::string, std::string>> overrides;  // --env K=V, applied last
  bool direct = false;                                         // Windows: do not go through zluda.exe
  bool ld_audit = false;                                       // Linux: load ZLUDA through LD_AUDIT (zluda_ld), not LD_LIBRARY_PATH (--ld-audit)
  bool tf32_override = true;                                   // TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 unless already set
  // How this zluda.exe joins its target's arguments (launcher.hpp learns it); unset: the
  // arguments go to zluda.exe as given.
  std::optional<LauncherJoin> launcher_join;
  std::vector<std::string> launcher_flags;  // zluda.exe's own, before "--" (--zluda-trace)
  // --trace: through ZLUDA's trace libraries (zluda_trace, in the runtime's trace/ folder).
  // Windows: zluda.exe --zluda-trace, which sets ZLUDA_LOG_DIR=%TEMP%\zluda itself; Linux: the
  // recipe's variables, ZLUDA_LOG_DIR naming trace_log_dir (the caller's per-run folder).
  bool trace = false;
  std::filesystem::path trace_log_dir;
  std::optional<bool> elevated;  // whether zcuda runs as administrator; unset: ask Windows
  platform::Os os = platform::current_os();
};

// One variable zcuda sets (or removes), with what it was and why.
struct EnvChange {
  std::string name;
  std::optional<std::string> before;
  std::string after;
  std::string why;
  bool removed = false;  // the variable is taken out of the environment
};

// The compute capability the program will see, and why (docs/families.md).
struct ComputeCapability {
  std::optional<std::string> value;  // unset: the runtime's family, and so its default, is unknown
  std::string source;                // "--zluda-cc", "user" (their ZLUDA_CC/ZLUDA_SM or --env), "family default", "unknown"
  std::string why;
};
nlohmann::json to_json(const ComputeCapability& cc);

struct LaunchPlan {
  std::filesystem::path program;  // what is executed (zluda.exe or the program itself)
  std::vector<std::string> args;
  std::filesystem::path target;  // the user's program, resolved
  bool through_launcher = false;
  std::optional<LauncherJoin> launcher_join;  // how the arguments were encoded for zluda.exe
  std::filesystem::path runtime_dir;          // the runtime used: options.runtime.dir, or its 32 folder for a 32-bit program
  bool is_32bit = false;                      // Windows: the program is a 32-bit (x86) PE
  platform::Environment environment;          // the child's whole environment
  family::Identity runtime_family;            // which ZLUDA the runtime is (unknown when its files do not tell)
  ComputeCapability compute_capability;
  std::vector<EnvChange> changes;
  // --trace: where zluda_trace writes (ZLUDA_LOG_DIR), and on Windows the name of the program's
  // own folder under it (trace.hpp: the run's traces are what appears there).
  std::optional<std::filesystem::path> trace_dir;
  std::optional<std::string> trace_program;
  std::vector<std::filesystem::path> library_folders;  // options.library_folders
};

// Splits "K=V" (V may be empty or contain '='); a usage error otherwise.
Result<std::pair<std::string, std::string>> parse_assignment(std::string_view text);

// Finds the program: a path as given, else a name searched on PATH (Windows: also NAME.exe).
Result<std::filesystem::path> resolve_program(const std::filesystem::path& program, const platform::Environment& env, platform::Os os);

Result<LaunchPlan> prepare_launch(const Options& options, const platform::Environment& base);

// A launch without ZLUDA (bench's `native`): the program itself, with the environment as given
// plus the overrides; options.runtime is not used.
Result<LaunchPlan> prepare_native_launch(const Options& options, const platform::Environment& base);

// The folders the program loads CUDA libraries from besides the runtime: its own folder, and
// those the options name (a profile's torch/lib).
std::vector<std::filesystem::path> program_library_folders(const LaunchPlan& plan);

// Refuses (ErrorKind::mixed_family, exit 14) a launch that would load ZLUDA libraries of two
// families into one process: the runtime's and those in the program's folders
// (family::check_not_mixed). A runtime whose family is unknown blocks nothing by itself.
// `listings`: where the launch keeps the folders it listed (nothing: list now).
Status check_families(const LaunchPlan& plan, platform::Os os, platform::FolderListings* listings = nullptr);

nlohmann::json to_json(const LaunchPlan& plan);

}  // namespace zcuda::launch
