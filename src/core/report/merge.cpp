// Many reports -> a compatibility matrix: one row per GPU and stack (gfx, driver, HIP SDK,
// ZLUDA build), verify results per check, conflicts shown, and which candidate architectures
// now have evidence enough to be called validated.
#include <zcuda/report/report.hpp>

#include <map>
#include <set>

#include <fmt/format.h>

#include <zcuda/core/json_text.hpp>
#include <zcuda/core/path_format.hpp>
#include <zcuda/core/record.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/verify/verify.hpp>

namespace zcuda::report {

namespace fs = std::filesystem;

namespace {

std::string text(const nlohmann::json& j, const char* key, const char* absent = "unknown") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>() : absent;
}

std::string zluda_build(const nlohmann::json& report) {
  for (const auto& c : report.value("installs", nlohmann::json::array())) {
    if (c.value("component", "") == "zluda" && c["current"].is_string()) return c["current"].get<std::string>();
  }
  return "none";
}

}  // namespace

Result<nlohmann::json> merge(const std::vector<fs::path>& files) {
  if (files.empty()) return fail(ErrorKind::usage, "zcuda report merge needs at least one report file");
  struct Row {
    nlohmann::json key;
    std::map<std::string, std::map<std::string, int>> checks;  // check -> status -> count
    int reports = 0;
  };
  std::map<std::string, Row> rows;
  std::set<std::string> check_names;
  // Per arch: reports whose core checks all passed on ZLUDA, and reports with a core failure.
  std::map<std::string, std::pair<int, int>> evidence;
  std::map<std::string, std::string> arch_status;

  for (const auto& file : files) {
    auto content = platform::read_file(file, 64u << 20);
    if (!content) return std::unexpected(content.error());
    auto report = nlohmann::json::parse(*content, nullptr, false);
    if (report.is_discarded() || !report.is_object() || !report.contains("schema")) {
      return fail(ErrorKind::invalid_input, fmt::format("{} is not a zcuda JSON report", file), "Produce reports with: zcuda report --json --output FILE");
    }
    if (report["schema"] != kReportSchema) {
      return fail(ErrorKind::invalid_input, fmt::format("{} has report schema {}, this zcuda reads {}", file, report["schema"].dump(), kReportSchema));
    }
    const auto& detect = report.value("detect", nlohmann::json::object());
    // The verify results in verify's own JSON form (absent, or an `error` object, when there are none).
    std::optional<verify::Report> results;
    if (const auto& saved = report.value("verify", nlohmann::json(nullptr)); saved.is_object() && !saved.contains("error")) {
      auto parsed = parse_record<verify::Report>(saved, "verify result");
      if (!parsed) return fail(ErrorKind::invalid_input, fmt::format("{}: {}", file, parsed.error().message));
      results = std::move(*parsed);
    }
    std::string driver = text(detect.value("driver", nlohmann::json::object()), "adrenalin_version", "");
    if (driver.empty()) driver = text(detect.value("driver", nlohmann::json::object()), "version");
    std::string hip = detect.value("hip", nlohmann::json(nullptr)).is_object() ? text(detect["hip"], "version") : "none";
    for (const auto& gpu : detect.value("gpus", nlohmann::json::array())) {
      if (gpu.value("vendor_id", 0) != 0x1002) continue;
      std::string gfx = text(gpu, "gfx");
      nlohmann::json key = {{"gpu", text(gpu, "name")}, {"gfx", gfx}, {"os", text(report.value("system", nlohmann::json::object()), "os")},
                            {"driver", driver}, {"hip_sdk", hip}, {"zluda", zluda_build(report)}};
      Row& row = rows[json_text(key, -1)];
      row.key = key;
      row.reports++;
      arch_status[gfx] = text(gpu, "status");
      bool core_failed = false;
      int driver_pass = 0, cublas_pass = 0;
      for (const auto& check : results ? results->checks : std::vector<verify::CheckResult>{}) {
        check_names.insert(check.name);
        row.checks[check.name][check.status]++;
        if (check.core) {
          // A stub that says "not supported" is honest; wrong numbers, errors and crashes are not.
          core_failed = core_failed || (check.status != "pass" && check.status != "unsupported");
          driver_pass += check.status == "pass" && check.name.starts_with("driver.");
          cublas_pass += check.status == "pass" && check.name.starts_with("cublas.");
        }
      }
      bool on_zluda = results && results->stack() == "zluda";
      if (on_zluda && !core_failed && driver_pass > 0 && cublas_pass > 0) evidence[gfx].first++;
      if (on_zluda && core_failed) evidence[gfx].second++;
    }
  }

  nlohmann::json matrix;
  matrix["schema"] = kReportSchema;
  matrix["reports"] = files.size();
  matrix["checks"] = std::vector<std::string>(check_names.begin(), check_names.end());
  nlohmann::json out_rows = nlohmann::json::array();
  for (auto& [_, row] : rows) {
    nlohmann::json r = row.key;
    r["reports"] = row.reports;
    nlohmann::json results = nlohmann::json::object();
    for (const auto& [check, statuses] : row.checks) {
      nlohmann::json counts = statuses;
      results[check] = {{"counts", counts}, {"conflict", statuses.size() > 1}};
    }
    r["results"] = results;
    out_rows.push_back(r);
  }
  matrix["rows"] = out_rows;
  // The rule (docs/report.md): a candidate has evidence enough with at least one report on ZLUDA
  // whose core checks all pass or are honestly unsupported (with driver and cuBLAS checks
  // passing), and no report on ZLUDA where a core check failed, erred, crashed or timed out.
  nlohmann::json promotions = nlohmann::json::array();
  for (const auto& [gfx, counts] : evidence) {
    if (arch_status[gfx] == "candidate" && counts.first >= 1 && counts.second == 0) {
      promotions.push_back({{"gfx", gfx}, {"passing_reports", counts.first}});
    }
  }
  matrix["ready_to_validate"] = promotions;
  return matrix;
}

std::string render_matrix_markdown(const nlohmann::json& m) {
  std::vector<std::string> checks = m.value("checks", std::vector<std::string>{});
  std::string out = fmt::format("## zcuda compatibility matrix ({} reports)\n\n", m.value("reports", 0));
  out += "| GPU | gfx | OS | driver | HIP SDK | ZLUDA | reports |";
  for (const auto& c : checks) out += " " + c + " |";
  out += "\n|---|---|---|---|---|---|---|";
  for (std::size_t i = 0; i < checks.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : m.value("rows", nlohmann::json::array())) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |", text(row, "gpu"), text(row, "gfx"), text(row, "os"), text(row, "driver"),
                       text(row, "hip_sdk"), text(row, "zluda"), row.value("reports", 0));
    for (const auto& c : checks) {
      auto it = row["results"].find(c);
      if (it == row["results"].end()) {
        out += " — |";
        continue;
      }
      std::string cellText;
      for (const auto& [status, n] : (*it)["counts"].items()) {
        cellText += fmt::format("{}{}{}", cellText.empty() ? "" : " / ", status, n.get<int>() > 1 ? fmt::format(" ×{}", n.get<int>()) : "");
      }
      if ((*it)["conflict"].get<bool>()) cellText = "⚠ " + cellText;
      out += " " + cellText + " |";
    }
    out += "\n";
  }
  const auto& ready = m.value("ready_to_validate", nlohmann::json::array());
  out += "\n";
  if (ready.empty()) {
    out += "No candidate architecture has enough evidence to be called validated yet.\n";
  } else {
    for (const auto& r : ready) {
      out += fmt::format("- **{}** is a candidate with {} report(s) on ZLUDA where every core check passed or was honestly unsupported, and none failing: it can be marked `validated`.\n",
                         text(r, "gfx"), r.value("passing_reports", 0));
    }
  }
  out += "\n⚠ marks checks whose result differs between reports of the same configuration.\n";
  return out;
}

}  // namespace zcuda::report
