#pragma once
// Redaction for reports: user and host names, home folders (this account's and any other user's),
// e-mail addresses and secrets (tokens, keys, passwords in values, in URLs' user-info and query)
// become placeholders.
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/platform/process.hpp>
#include <zcuda/platform/system_info.hpp>

namespace zcuda::report {

class Redactor {
 public:
  // Rules for this machine: its user, host and home folder; the values of USER, LOGNAME, USERNAME
  // and USERPROFILE in `environment` (they may name another account than the one zcuda runs as,
  // and Windows profile folders often differ from the user name); every user's home folder
  // (/home/NAME, /Users/NAME, X:\Users\NAME); plus the generic secret patterns.
  static Redactor for_machine(const platform::SystemInfo& info, const platform::Environment& environment);
  static Redactor disabled() { return Redactor(false); }

  bool enabled() const { return enabled_; }
  std::string apply(std::string_view text) const;
  // Redacts every string value (object keys are zcuda's own and stay).
  void apply(nlohmann::json& value) const;

 private:
  explicit Redactor(bool enabled) : enabled_(enabled) {}
  struct Rule {
    std::regex pattern;
    std::string replacement;
  };
  bool enabled_ = true;
  std::vector<Rule> rules_;
};

}  // namespace zcuda::report
