// The "Application checks" part of a report: verify --app's records as apps wrote them.
#include "app_checks.hpp"
#include "table_cell.hpp"

#include <fmt/format.h>

#include <zcuda/apps/check.hpp>

namespace zcuda::report {

namespace {

using nlohmann::json;

// The facts a reader needs, not everything the check printed (a torch check lists every loaded library).
json key_facts(const apps::CheckRecord& r) {
  static const std::vector<const char*> fatbin = {"library", "compute_capability", "compute_capability_from", "ptx_used", "hint"};
  static const std::vector<const char*> torch = {"torch", "cuda_flavour", "hip", "cuda_available", "device", "capability"};
  static const std::vector<const char*> physx = {"version", "minimum"};
  json out = json::object();
  for (const char* key : r.check == apps::Check::fatbin ? fatbin : r.check == apps::Check::physx ? physx : torch) {
    if (r.facts.contains(key)) out[key] = r.facts[key];
  }
  if (r.check == apps::Check::fatbin && r.facts.contains("targets")) {
    json targets = json::array();
    for (const auto& t : r.facts["targets"]) targets.push_back(t.value("target", "?") + " (" + t.value("kind", "?") + ")");
    out["targets"] = targets;
  }
  if (r.check == apps::Check::torch && r.facts.contains("comparisons")) {
    json comparisons = json::object();
    for (const auto& c : r.facts["comparisons"]) comparisons[c.value("name", "?")] = c.value("ok", false) ? "match" : "differs";
    out["comparisons"] = comparisons;
  }
  return out;
}

std::string field_text(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "—";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

json app_checks_section(const CollectOptions& options) {
  json out = json::array();
  for (const auto& r : apps::read_checks(options.home, options.max_app_checks)) {
    out.push_back({{"app", r.app},
                   {"profile", r.profile},
                   {"check", apps::to_string(r.check)},
                   {"status", apps::to_string(r.status)},
                   {"reason", r.reason},
                   {"started_utc", r.started_utc},
                   {"runtime", r.runtime},
                   {"facts", key_facts(r)}});
  }
  return out;
}

bool any_app_check_passed(const CollectOptions& options) { return apps::any_check_passed(options.home); }

std::string app_checks_markdown(const json& report) {
  std::string body;
  for (const auto& c : report.value("app_checks", json::array())) {
    const json& f = c.value("facts", json::object());
    std::string facts;
    if (c.value("check", "") == "fatbin") {
      std::string targets;
      for (const auto& t : f.value("targets", json::array())) targets += (targets.empty() ? "" : ", ") + t.get<std::string>();
      facts = fmt::format("capability {} ({}), PTX used {}; targets: {}", field_text(f, "compute_capability"),
                          field_text(f, "compute_capability_from"), field_text(f, "ptx_used"), targets.empty() ? "none" : targets);
    } else if (c.value("check", "") == "physx") {
      facts = fmt::format("PhysX System Software {} (needs {} or newer)", field_text(f, "version"), field_text(f, "minimum"));
    } else {
      facts = fmt::format("torch {} (CUDA flavour {}), CUDA {}, device {}", field_text(f, "torch"), field_text(f, "cuda_flavour"),
                          f.value("cuda_available", false) ? "available" : "unavailable", field_text(f, "device"));
    }
    body += fmt::format("| {} | `{}` | {} | {} | **{}** | {} | {} |\n", field_text(c, "started_utc"), table_cell(field_text(c, "app")),
                        field_text(c, "profile"), field_text(c, "check"), field_text(c, "status"),
                        table_cell(c.value("reason", "").empty() ? "—" : c.value("reason", "")), table_cell(facts));
  }
  if (body.empty())
    return fmt::format("<details><summary>Application checks</summary>\n\n{}\n</details>\n\n", "`zcuda verify --app` has not been run.");
  return fmt::format(
      "<details><summary>Application checks</summary>\n\n| when | app | profile | check | status | reason | facts |\n"
      "|---|---|---|---|---|---|---|\n{}\n</details>\n\n",
      body);
}

}  // namespace zcuda::report
