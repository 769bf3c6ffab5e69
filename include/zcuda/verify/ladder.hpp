#pragma once
// The evidence ladder: how far the evidence about a machine's CUDA stack goes. Each level needs
// evidence of its own; a higher level is never inferred from a lower one. verify's summary,
// `zcuda report` and `zcuda report merge` all state it with these names and words.
//
//   none                  no CUDA driver was found
//   detected              a driver is there, but it does not initialise or a core library does not load
//   loadable              the driver initialises and every core library loads; not every core check passes
//   functional            every core check computes correct results
//   application-verified  functional, and an application bench's output was checked and passed
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/verify/verify.hpp>

namespace zcuda::verify::ladder {

enum class Level { none, detected, loadable, functional, application_verified };

// What the ladder needs of one check's result.
struct CheckOutcome {
  std::string name;
  bool core = false;
  CheckStatus status = CheckStatus::error;
  std::vector<std::string> roles;  // roles of the libraries the check reported loaded ("driver", "cublas", ...)
};

struct Assessment {
  Level level = Level::none;
  std::string reason;  // what keeps the machine below the next level; empty at the top
};

// `application_verified`: an application bench with an output check has passed on this machine.
// It only counts on top of "functional".
Assessment assess(const std::vector<CheckOutcome>& checks, bool application_verified);

std::string_view id(Level level);       // "none", "detected", "loadable", "functional", "application-verified"
std::string_view label(Level level);    // "not detected", "detected", "loadable", "functional", "application verified"
std::string_view meaning(Level level);  // the sentence above
// "loadable: the driver … (cusparse.spmv_csr is unsupported)"
std::string describe(const Assessment& assessment);
// {"id", "label", "meaning", "reason"}
nlohmann::json to_json(const Assessment& assessment);

std::vector<CheckOutcome> outcomes(const std::vector<CheckResult>& results);
// From a saved verify result (`zcuda verify --json`, state/verify/last.json). Results saved before
// checks recorded their libraries' roles count the library of the check's own family as loaded
// when the check got past loading it.
std::vector<CheckOutcome> outcomes(const nlohmann::json& verify_result);

}  // namespace zcuda::verify::ladder
