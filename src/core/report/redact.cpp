#include <zcuda/report/redact.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <zcuda/platform/os.hpp>

namespace zcuda::report {

namespace {

std::string escape_regex(std::string_view literal) {
  static const std::string special = R"(\^$.|?*+()[]{}/)";
  std::string out;
  for (char c : literal) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// A folder may be written with either slash (and JSON escapes backslashes): match all forms.
std::string path_pattern(std::string_view folder) {
  std::string out;
  for (char c : folder) {
    if (c == '/' || c == '\\') {
      out += R"((?:/|\\{1,2}))";
    } else {
      out += escape_regex(std::string_view(&c, 1));
    }
  }
  return out;
}

}  // namespace

Redactor Redactor::for_machine(const platform::SystemInfo& info, const platform::Environment& environment) {
  Redactor r(true);
  const auto icase = std::regex::ECMAScript | std::regex::icase;
  auto add = [&](const std::string& pattern, std::string replacement, std::regex::flag_type flags = std::regex::ECMAScript) {
    r.rules_.push_back({std::regex(pattern, flags), std::move(replacement)});
  };
  // Credentials in URLs: scheme://user:password@host
  add(R"(([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@"'<>]+@)", "$1<redacted-credentials>@");
  // Query parameters that carry secrets (signed URLs, API keys).
  add(R"(([?&][^=&\s#"']*(?:token|key|secret|sig|signature|password|passwd|pwd|auth|credential|session)[^=&\s#"']*=)[^&\s#"']+)", "$1<redacted>",
      icase);
  // Well-known token shapes.
  add(R"(\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})\b)",
      "<redacted-token>");
  add(R"(\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,})", "$1 <redacted>", icase);
  add(R"(\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})", "<redacted-token>");
  // name=value / name: value where the name says secret.
  add(R"(((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth)[A-Za-z0-9_]*\s*[=:]\s*)(["']?)[^\s"',;&]+)",
      "$1$2<redacted>", icase);
  add(R"([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})", "<email>");
  if (info.home_folder.size() > 1) add(path_pattern(info.home_folder), "<home>", icase);
  auto account_variable = [&](const char* name) -> std::string {
    auto key = platform::variable_key(environment, name, platform::current_os());
    return key ? environment.at(*key) : std::string();
  };
  if (auto profile = account_variable("USERPROFILE"); profile.size() > 3) add(path_pattern(profile), "<home>", icase);
  // Any user's home folder, this account's or not: /home/NAME, /Users/NAME, X:\Users\NAME, with
  // either slash or JSON's doubled backslashes. A name may hold single spaces ("C:\Users\Jane
  // Doe\..."). The shared folders of every machine stay.
  const std::string slash = R"((?:/|\\{1,2}))";
  const std::string word = R"([^/\\\s"'<>|:*?]+)";
  add("(?:[A-Za-z]:" + slash + "Users|/Users|/home)" + slash + R"((?!(?:Public|Default|Default User|All Users|Shared)(?:[/\\"'<>\s]|$)))" +
          "(?:" + word + "(?: " + word + R"()*(?=[/\\])|)" + word + ")",
      "<home>", icase);
  // Short names ("vm") match ordinary words when case is ignored: those match exactly.
  if (!info.host_name.empty() && info.host_name != "localhost") {
    add("\\b" + escape_regex(info.host_name) + "\\b", "<host>", info.host_name.size() >= 4 ? icase : std::regex::ECMAScript);
  }
  std::vector<std::string> accounts = {info.user_name, account_variable("USER"), account_variable("LOGNAME"), account_variable("USERNAME")};
  // Longer names first ("alice2" before "alice"); equal ones side by side for unique().
  std::sort(accounts.begin(), accounts.end(), [](const auto& a, const auto& b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
  accounts.erase(std::unique(accounts.begin(), accounts.end()), accounts.end());
  for (const auto& account : accounts) {
    if (account.size() >= 2) add("\\b" + escape_regex(account) + "\\b", "<user>");
  }
  return r;
}

std::string Redactor::apply(std::string_view text) const {
  std::string out(text);
  if (!enabled_) return out;
  for (const auto& rule : rules_) out = std::regex_replace(out, rule.pattern, rule.replacement);
  return out;
}

void Redactor::apply(nlohmann::json& value) const {
  if (!enabled_) return;
  if (value.is_string()) {
    value = apply(value.get_ref<const std::string&>());
  } else if (value.is_array() || value.is_object()) {
    for (auto& item : value) apply(item);
  }
}

}  // namespace zcuda::report
