#pragma once
// Redaction for reports: user and host names, the home folder, e-mail addresses and secrets
// (tokens, keys, passwords in values, in URLs' user-info and query) become placeholders.
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/platform/system_info.hpp>

namespace zcuda::report {

class Redactor {
 public:
  // Rules for this machine: its user, host and home folder, plus the generic secret patterns.
  static Redactor for_machine(const platform::SystemInfo& info);
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
