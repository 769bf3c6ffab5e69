// Many reports -> a compatibility matrix: one row per GPU and stack (gfx, driver, HIP SDK,
// ZLUDA build), verify results per check, conflicts shown, and which candidate architectures
// now have evidence enough to be called validated.
#include <zcuda/report/report.hpp>
#include <zcuda/verify/verify.hpp>

#include <map>
#include <set>

#include <fmt/format.h>

#include <zcuda/bench/record.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/record.hpp>
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

// One application on one GPU with one ZLUDA release: how its benches went, with the figure.
struct AppRow {
  nlohmann::json key;
  int verified = 0;   // ran and the output check passed on every run
  int unchecked = 0;  // ran, but without an output check
  int failed = 0;     // a run failed (crash, exit code, check)
  std::vector<double> medians;
  std::string measure;
};

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<nlohmann::json> merge(const std::vector<fs::path>& files) {
  if (files.empty()) return fail(ErrorKind::usage, "zcuda report merge needs at least one report file");
  struct Row {
    nlohmann::json key;
    std::map<std::string, std::map<std::string, int>> checks;  // check -> status -> count
    std::map<std::string, int> levels;                         // the ladder's label -> count
    int reports = 0;
  };
  std::map<std::string, Row> rows;
  std::set<std::string> check_names;
  // Per arch: reports whose core checks all passed on ZLUDA, and reports with a core failure.
  std::map<std::string, std::pair<int, int>> evidence;
  std::map<std::string, std::string> arch_status;
  std::map<std::string, AppRow> app_rows;

  for (const auto& file : files) {
    auto content = platform::read_file(file, 64u << 20);
    if (!content) return std::unexpected(content.error());
    auto report = nlohmann::json::parse(*content, nullptr, false);
    if (report.is_discarded() || !report.is_object() || !report.contains("schema")) {
      return fail(ErrorKind::invalid_input, fmt::format("{} is not a zcuda JSON report", file),
                  "Produce reports with: zcuda report --json --output FILE");
    }
    if (report["schema"] != kReportSchema) {
      return fail(ErrorKind::invalid_input,
                  fmt::format("{} has report schema {}, this zcuda reads {}", file, report["schema"].dump(), kReportSchema));
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
      nlohmann::json key = {{"gpu", text(gpu, "name")}, {"gfx", gfx},     {"os", text(report.value("system", nlohmann::json::object()), "os")},
                            {"driver", driver},         {"hip_sdk", hip}, {"zluda", zluda_build(report)}};
      Row& row = rows[json_text(key, -1)];
      row.key = key;
      row.reports++;
      row.levels[evidence_level(report).value("label", "not detected")]++;
      arch_status[gfx] = text(gpu, "status");
      bool core_failed = false;
      int driver_pass = 0, cublas_pass = 0;
      for (const auto& check : results ? results->checks : std::vector<verify::CheckResult>{}) {
        check_names.insert(check.name);
        row.checks[check.name][std::string(to_string(check.status))]++;
        if (check.core) {
          // A stub that says "not supported" is honest; wrong numbers, errors and crashes are not.
          using verify::CheckStatus;
          core_failed = core_failed || (check.status != CheckStatus::pass && check.status != CheckStatus::unsupported);
          driver_pass += check.status == CheckStatus::pass && check.name.starts_with("driver.");
          cublas_pass += check.status == CheckStatus::pass && check.name.starts_with("cublas.");
        }
      }
      bool on_zluda = results && results->stack() == "zluda";
      if (on_zluda && !core_failed && driver_pass > 0 && cublas_pass > 0) evidence[gfx].first++;
      if (on_zluda && core_failed) evidence[gfx].second++;

      // Applications: every ZLUDA variant of every complete bench (native runs are not evidence
      // for an AMD architecture). A bench whose output check passed on every run is evidence
      // for the architecture; one where a ZLUDA run failed is evidence against it.
      for (const auto& entry : report.value("bench", nlohmann::json::array())) {
        auto bench = bench::bench_record_from_json(entry);
        if (!bench || !bench->complete) continue;
        for (const auto& v : bench->variants) {
          if (v.runtime.spec == "native") continue;
          nlohmann::json app_key = {{"application", file_name(bench->app.path)},
                                    {"app_sha256", bench->app.sha256.substr(0, 12)},
                                    {"gpu", text(gpu, "name")},
                                    {"gfx", gfx},
                                    {"os", text(report.value("system", nlohmann::json::object()), "os")},
                                    {"zluda", v.runtime.version.value_or(v.runtime.spec)}};
          AppRow& app = app_rows[json_text(app_key, -1)];
          app.key = app_key;
          app.measure = bench->comparison.measure;
          if (!v.ok) {
            app.failed++;
            evidence[gfx].second++;
          } else if (bench->output_verified()) {
            app.verified++;
            evidence[gfx].first++;
          } else {
            app.unchecked++;
          }
          if (v.summary) app.medians.push_back(v.summary->median);
        }
      }
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
    r["levels"] = row.levels;
    out_rows.push_back(r);
  }
  matrix["rows"] = out_rows;
  nlohmann::json applications = nlohmann::json::array();
  for (auto& [_, app] : app_rows) {
    nlohmann::json a = app.key;
    a["status"] = app.failed > 0 ? "failed" : app.verified > 0 ? "verified" : "ran, output not checked";
    a["benches"] = {{"verified", app.verified}, {"unchecked", app.unchecked}, {"failed", app.failed}};
    a["measure"] = app.measure;
    a["median"] = app.medians.empty() ? nlohmann::json(nullptr) : nlohmann::json(bench::median(app.medians));
    applications.push_back(a);
  }
  matrix["applications"] = applications;
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
  out += "| GPU | gfx | OS | driver | HIP SDK | ZLUDA | reports | level |";
  for (const auto& c : checks) out += " " + c + " |";
  out += "\n|---|---|---|---|---|---|---|---|";
  for (std::size_t i = 0; i < checks.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : m.value("rows", nlohmann::json::array())) {
    std::string levels;
    const auto row_levels = row.value("levels", nlohmann::json::object());  // .items() of a temporary would dangle
    for (const auto& [label, n] : row_levels.items()) {
      levels += fmt::format("{}{}{}", levels.empty() ? "" : " / ", label, n.get<int>() > 1 ? fmt::format(" ×{}", n.get<int>()) : "");
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |", text(row, "gpu"), text(row, "gfx"), text(row, "os"), text(row, "driver"),
                       text(row, "hip_sdk"), text(row, "zluda"), row.value("reports", 0), levels.empty() ? "—" : levels);
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
  const auto& apps = m.value("applications", nlohmann::json::array());
  if (!apps.empty()) {
    out +=
        "\n### Applications (zcuda bench)\n\n| application | GPU | gfx | OS | ZLUDA | status | median | measure "
        "|\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& a : apps) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | `{}` |\n", text(a, "application"), text(a, "gpu"), text(a, "gfx"), text(a, "os"),
                         text(a, "zluda"), text(a, "status"), a["median"].is_number() ? fmt::format("{:.6g}", a["median"].get<double>()) : "—",
                         text(a, "measure"));
    }
  }
  const auto& ready = m.value("ready_to_validate", nlohmann::json::array());
  out += "\n";
  if (ready.empty()) {
    out += "No candidate architecture has enough evidence to be called validated yet.\n";
  } else {
    for (const auto& r : ready) {
      out += fmt::format(
          "- **{}** is a candidate with {} piece(s) of evidence on ZLUDA (verify reports where every core check passed or was "
          "honestly unsupported, or benches whose output check passed on every run) and none against: it can be marked `validated`.\n",
          text(r, "gfx"), r.value("passing_reports", 0));
    }
  }
  out += "\n⚠ marks checks whose result differs between reports of the same configuration.\n";
  return out;
}

}  // namespace zcuda::report
