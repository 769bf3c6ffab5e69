#pragma once
// The check that proves an application works through ZLUDA, chosen by the profile's `check`
// (run_check): for PyTorch applications the torch check (manifests/torch-check.py, embedded),
// for llama.cpp the fatbin check (fatbin_check.cpp); and its record, which verify's evidence
// ladder and report read (state/apps/checks/<time>.json).
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/apps/profile.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/home/home.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::apps {

// torch: pass: CUDA available and mm, conv2d and attention match the CPU; fail: they do not;
// unavailable: torch has no usable CUDA (the reason says why). fatbin: pass: a PTX image ZLUDA
// can use is there; fail: none is. error: the check itself did not finish.
enum class CheckStatus { pass, fail, unavailable, error };
std::string_view to_string(CheckStatus status);

struct CheckRecord {
  Check check = Check::torch;  // records written before the field was kept are the torch check's
  std::string profile;
  std::string app;      // what was given
  std::string runtime;  // the ZLUDA folder, or "native"
  std::string started_utc;
  std::string zcuda_version;
  CheckStatus status = CheckStatus::error;
  std::string reason;
  std::optional<std::string> flavour_problem;       // said before the check ran (apps::flavour_problem)
  nlohmann::json facts = nlohmann::json::object();  // torch: what the script printed; fatbin: the library, its targets, the capability

  bool passed() const { return status == CheckStatus::pass; }
  // Evidence for the ladder's top level (an application that loads and computes right): only a
  // check that ran the application. The fatbin check reads files; it says the build can work.
  bool proves_application() const { return passed() && check == Check::torch; }
};
void to_json(nlohmann::json& j, const CheckRecord& record);
void from_json(const nlohmann::json& j, CheckRecord& record);

// The script's text, as embedded.
Result<std::string_view> torch_check_script();

// Runs the torch check as `plan` launches it: plan's program is the interpreter (or ZLUDA's
// launcher before it) and its last argument the script's path. Fills status, reason and facts.
Status run_torch_check(const launch::LaunchPlan& plan, std::chrono::seconds timeout, CheckRecord& record);

// Reads the script's output line; error status when it is not there.
void read_check_output(std::string_view out, std::string_view err, int exit_code, CheckRecord& record);

// The compute capability a ZLUDA runtime of `family` reports to the program, and where it comes
// from: the family's cc variables where its release reads them (upstream since v6-preview.63:
// ZLUDA_CC, else ZLUDA_SM, parsed as zluda_common/src/constants.rs parses them), else the default
// of the family and release (family::facts).
struct ReportedCc {
  int major = 0, minor = 0;
  std::string from;                    // "ZLUDA_CC=8.6", "upstream's default"
  std::optional<std::string> ignored;  // a variable set that the family does not read, or cannot parse
  std::vector<std::string> variables;  // the variables this runtime reads it from (none before upstream's v6-preview.63)
  int value() const { return major * 10 + minor; }
  std::string text() const;  // "8.5"
};
ReportedCc reported_cc(family::Family family, const std::optional<std::string>& release, const platform::Environment& environment, platform::Os os);

// The fatbin check (llama.cpp): the fat binary images of the application's CUDA library (the
// profile's marker files: ggml-cuda.dll, libggml-cuda.so) must include PTX for an architecture at
// or below the compute capability ZLUDA reports. ZLUDA compiles PTX only (zluda/src/impl/module.rs
// skips every image that is not PTX), and ggml-cuda aborts when none of its compiled architectures
// is at or below the device's ("ggml was not compiled with any CUDA arch <= ...",
// ggml/src/ggml-cuda/common.cuh). Fills status, reason and facts.
void run_fatbin_check(const Match& match, const std::filesystem::path& app, const ReportedCc& cc, family::Family family, CheckRecord& record);

// What a check needs from whoever runs it. The torch check's launch is built by the caller,
// which resolves runtimes and stages (the launch `zcuda run` would make).
struct CheckRun {
  const Match* match = nullptr;
  std::filesystem::path app;                         // what the user gave
  family::Family family = family::Family::upstream;  // of the runtime the application gets
  std::optional<std::string> release;                // that runtime's release, where its files tell
  platform::Environment environment;                 // the environment it starts with
  platform::Os os = platform::current_os();
  std::chrono::seconds timeout{300};
  std::function<Result<launch::LaunchPlan>()> torch_launch;  // the torch check's launch
};

// Runs the check the profile names and fills `record` (its check, status, reason, facts). A
// profile whose check zcuda cannot run yet (physx) or that has none is refused (unsupported),
// never passed.
Status run_check(const CheckRun& run, CheckRecord& record);

// Kept under home/state/apps/checks; the newest first when read.
Result<std::filesystem::path> write_check(const home::Home& home, const CheckRecord& record);
std::vector<CheckRecord> read_checks(const home::Home& home, std::size_t limit);
// An application check that ran the application passed on this machine: the evidence ladder's top level.
bool any_check_passed(const home::Home& home);

}  // namespace zcuda::apps
