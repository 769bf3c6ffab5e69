#include <zcuda/verify/ladder.hpp>

#include <algorithm>

namespace zcuda::verify::ladder {
namespace {

// The libraries the core checks need: "loadable" means every one of them loaded.
struct CoreRole {
  const char* role;
  const char* display;
};
constexpr CoreRole kCoreRoles[] = {{"driver", "the CUDA driver"}, {"cublas", "cuBLAS"}, {"cublaslt", "cuBLASLt"}, {"cusparse", "cuSPARSE"}};

// The first few reasons; the full list is in the checks themselves.
std::string join(const std::vector<std::string>& parts) {
  constexpr std::size_t kShown = 4;
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < kShown; ++i) out += (out.empty() ? "" : "; ") + parts[i];
  if (parts.size() > kShown) out += "; and " + std::to_string(parts.size() - kShown) + " more";
  return out;
}

const CheckOutcome* find(const std::vector<CheckOutcome>& checks, std::string_view name) {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool loaded(const std::vector<CheckOutcome>& checks, std::string_view role) {
  return std::any_of(checks.begin(), checks.end(),
                     [&](const CheckOutcome& c) { return std::find(c.roles.begin(), c.roles.end(), role) != c.roles.end(); });
}

}  // namespace

Assessment assess(const std::vector<CheckOutcome>& checks, bool application_verified) {
  const bool anything = std::any_of(checks.begin(), checks.end(), [](const CheckOutcome& c) { return c.status != CheckStatus::missing; });
  if (!anything && !loaded(checks, "driver")) {
    return {Level::none, checks.empty() ? "no check has been run" : "every check reports its library missing"};
  }

  std::vector<std::string> blocking;
  const auto* init = find(checks, "driver.init");
  if (init == nullptr) {
    blocking.push_back("driver.init was not run");
  } else if (init->status != CheckStatus::pass) {
    blocking.push_back("driver.init is " + std::string(to_string(init->status)));
  }
  for (const auto& r : kCoreRoles) {
    if (!loaded(checks, r.role)) blocking.push_back(std::string(r.display) + " did not load in any check");
  }
  if (!blocking.empty()) return {Level::detected, join(blocking)};

  for (const auto& spec : verify::checks()) {
    if (!spec.core) continue;
    const auto* c = find(checks, spec.name);
    if (c == nullptr) blocking.push_back(spec.name + " was not run");
  }
  for (const auto& c : checks) {
    if (c.core && c.status != CheckStatus::pass) blocking.push_back(c.name + " is " + std::string(to_string(c.status)));
  }
  if (!blocking.empty()) return {Level::loadable, join(blocking)};

  if (!application_verified) return {Level::functional, "no application bench with an output check has passed on this machine yet"};
  return {Level::application_verified, ""};
}

std::string_view id(Level level) {
  switch (level) {
    case Level::none:
      return "none";
    case Level::detected:
      return "detected";
    case Level::loadable:
      return "loadable";
    case Level::functional:
      return "functional";
    case Level::application_verified:
      return "application-verified";
  }
  return "none";
}

std::string_view label(Level level) {
  switch (level) {
    case Level::none:
      return "not detected";
    case Level::detected:
      return "detected";
    case Level::loadable:
      return "loadable";
    case Level::functional:
      return "functional";
    case Level::application_verified:
      return "application verified";
  }
  return "not detected";
}

std::string_view meaning(Level level) {
  switch (level) {
    case Level::none:
      return "no CUDA driver was found";
    case Level::detected:
      return "a CUDA driver is there, but it does not initialise or a core library does not load";
    case Level::loadable:
      return "the driver initialises and every core library loads, but not every core check passes";
    case Level::functional:
      return "every core check computes correct results";
    case Level::application_verified:
      return "every core check passes and an application bench's output was checked";
  }
  return "";
}

std::string describe(const Assessment& a) {
  std::string text = std::string(label(a.level)) + ": " + std::string(meaning(a.level));
  if (!a.reason.empty()) text += " (" + a.reason + ")";
  return text;
}

nlohmann::json to_json(const Assessment& a) {
  return {{"id", std::string(id(a.level))}, {"label", std::string(label(a.level))}, {"meaning", std::string(meaning(a.level))}, {"reason", a.reason}};
}

std::vector<CheckOutcome> outcomes(const std::vector<CheckResult>& results) {
  std::vector<CheckOutcome> out;
  for (const auto& r : results) {
    CheckOutcome c{r.name, r.core, r.status, {}};
    for (const auto& lib : r.libraries) c.roles.push_back(lib.role);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<CheckOutcome> outcomes(const nlohmann::json& verify_result) {
  std::vector<CheckOutcome> out;
  if (!verify_result.is_object() || !verify_result.contains("checks") || !verify_result["checks"].is_array()) return out;
  for (const auto& check : verify_result["checks"]) {
    if (!check.is_object() || !check.contains("name") || !check["name"].is_string()) continue;
    CheckOutcome c;
    c.name = check["name"].get<std::string>();
    const auto word = check.contains("status") && check["status"].is_string() ? check["status"].get<std::string>() : std::string();
    c.status = check_status_from(word).value_or(CheckStatus::error);
    if (check.contains("core") && check["core"].is_boolean()) {
      c.core = check["core"].get<bool>();
    } else if (const auto* spec = find_check(c.name)) {
      c.core = spec->core;
    }
    bool had_roles = false;
    if (check.contains("libraries") && check["libraries"].is_array()) {
      for (const auto& lib : check["libraries"]) {
        if (lib.is_object() && lib.contains("role") && lib["role"].is_string()) {
          c.roles.push_back(lib["role"].get<std::string>());
          had_roles = true;
        }
      }
    }
    if (!had_roles && c.status != CheckStatus::missing && c.status != CheckStatus::crash && c.status != CheckStatus::timeout) {
      // Older results: a check that got past loading had its own library (and the driver).
      c.roles = {c.name.substr(0, c.name.find('.')), "driver"};
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace zcuda::verify::ladder
