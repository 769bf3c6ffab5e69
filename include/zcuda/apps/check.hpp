#pragma once
// The check that proves an application works through ZLUDA (for PyTorch applications, the torch
// check: manifests/torch-check.py, embedded), and its record, which verify's evidence ladder
// and report read (state/apps/checks/<time>.json).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/home/home.hpp>
#include <zcuda/launch/launch.hpp>

namespace zcuda::apps {

// pass: CUDA available and mm, conv2d and attention match the CPU; fail: they do not;
// unavailable: torch has no usable CUDA (the reason says why); error: the check itself did not
// finish.
enum class CheckStatus { pass, fail, unavailable, error };
std::string_view to_string(CheckStatus status);

struct CheckRecord {
  std::string profile;
  std::string app;      // what was given
  std::string runtime;  // the ZLUDA folder, or "native"
  std::string started_utc;
  std::string zcuda_version;
  CheckStatus status = CheckStatus::error;
  std::string reason;
  std::optional<std::string> flavour_problem;       // said before the check ran (apps::flavour_problem)
  nlohmann::json facts = nlohmann::json::object();  // what the script printed (torch, device, libraries, comparisons)

  bool passed() const { return status == CheckStatus::pass; }
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

// Kept under home/state/apps/checks; the newest first when read.
Result<std::filesystem::path> write_check(const home::Home& home, const CheckRecord& record);
std::vector<CheckRecord> read_checks(const home::Home& home, std::size_t limit);
// An application check passed on this machine: the evidence ladder's top level.
bool any_check_passed(const home::Home& home);

}  // namespace zcuda::apps
