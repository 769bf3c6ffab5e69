#pragma once
// The application checks in a report (`zcuda verify --app`'s records): their JSON section, whether
// one passed (the evidence ladder's top level), and their Markdown section.
#include <string>

#include <nlohmann/json.hpp>

#include <zcuda/report/report.hpp>

namespace zcuda::report {

// The newest records first, each {app, profile, check, status, reason, started_utc, runtime, facts}
// with the facts that say what was checked (torch: version, flavour, device; fatbin: library,
// capability, targets, the PTX used).
nlohmann::json app_checks_section(const CollectOptions& options);
// A check that ran the application passed (apps::CheckRecord::proves_application).
bool any_app_check_passed(const CollectOptions& options);
std::string app_checks_markdown(const nlohmann::json& report);

}  // namespace zcuda::report
