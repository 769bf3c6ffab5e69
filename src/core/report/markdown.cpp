// Markdown for a GitHub issue: a short summary table, then collapsible <details> sections.
#include <zcuda/report/report.hpp>

#include "app_checks.hpp"
#include "table_cell.hpp"

#include <map>

#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/base/units.hpp>
#include <zcuda/verify/verify.hpp>

namespace zcuda::report {

// Table cells must not break the row.
std::string table_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

namespace {

std::string str(const nlohmann::json& j, const char* key, const char* absent = "—") {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return absent;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

// ", upstream family, release v6" for an installed ZLUDA; nothing for other components.
std::string install_family(const nlohmann::json& component) {
  const auto it = component.find("runtime_family");
  if (it == component.end() || !it->is_object()) return "";
  const std::string release = str(*it, "release", "");
  return ", " + str(*it, "family") + " family" + (release.empty() ? "" : ", release " + release);
}

// A member by reference (iterating .items() of a temporary copy would dangle).
const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? empty : *it;
}

std::string details(const std::string& title, const std::string& body) {
  return fmt::format("<details><summary>{}</summary>\n\n{}\n</details>\n\n", title, body);
}

std::string gpu_line(const nlohmann::json& g) {
  std::string line = str(g, "name");
  if (!g["gfx"].is_null()) line += fmt::format(" ({})", g["gfx"].get<std::string>());
  if (g.value("integrated", false)) line += ", integrated";
  line += ", " + str(g, "status");
  return line;
}

// The report holds the last verify results in verify's own JSON form, or an object with `error`.
Result<std::optional<verify::Report>> verify_results(const nlohmann::json& report) {
  const auto& saved = report.value("verify", nlohmann::json(nullptr));
  if (saved.is_null()) return std::optional<verify::Report>();
  if (saved.is_object() && saved.size() == 1 && saved.contains("error")) return fail(ErrorKind::invalid_input, str(saved, "error"));
  auto parsed = parse_record<verify::Report>(saved, "verify result");
  if (!parsed) return std::unexpected(parsed.error());
  return std::optional<verify::Report>(std::move(*parsed));
}

std::string verify_summary(const Result<std::optional<verify::Report>>& saved) {
  if (!saved) return "unreadable";
  if (!*saved) return "not run";
  std::map<verify::CheckStatus, int> counts;
  for (const auto& c : (*saved)->checks) counts[c.status]++;
  const std::string out = verify::tally(counts);
  return out.empty() ? "no checks" : out;
}

}  // namespace

std::string render_markdown(const nlohmann::json& r) {
  const nlohmann::json& d = r.value("detect", nlohmann::json::object());
  const nlohmann::json& sys = r["system"];
  std::string out = "## zcuda report\n\n";
  out += "| | |\n|---|---|\n";
  out += fmt::format("| zcuda | {} ({}) |\n", table_cell(str(r["zcuda"], "version")), table_cell(str(r["zcuda"], "build")));
  // Reports of older zcuda versions have no knowledge bundle.
  if (r.contains("knowledge") && r["knowledge"].is_object()) {
    const auto& k = r["knowledge"];
    out += fmt::format("| knowledge | {} ({}, expires {}) |\n", k.value("version", std::uint64_t{0}), table_cell(str(k, "source")),
                       table_cell(str(k, "expires")));
  }
  out += fmt::format("| OS | {} {} {} |\n", table_cell(str(sys, "os_name")), table_cell(str(sys, "os_version", "")),
                     table_cell(str(sys, "architecture", "")));
  out += fmt::format("| CPU, RAM | {}, {} |\n", table_cell(str(sys, "cpu")),
                     sys["ram_bytes"].is_number() ? format_bytes(sys["ram_bytes"].get<std::uint64_t>()) : "—");
  std::string gpus;
  for (const auto& g : d.value("gpus", nlohmann::json::array())) gpus += (gpus.empty() ? "" : "; ") + gpu_line(g);
  out += fmt::format("| GPU | {} |\n", table_cell(gpus.empty() ? "none found" : gpus));
  const auto& drv = d.value("driver", nlohmann::json::object());
  std::string driver = str(drv, "version", "unknown");
  if (!drv.value("adrenalin_version", nlohmann::json(nullptr)).is_null()) driver += " (Adrenalin " + str(drv, "adrenalin_version") + ")";
  out += fmt::format("| Driver | {} |\n", table_cell(driver));
  const auto& rt = d.value("hip_runtime", nlohmann::json::object());
  out += fmt::format(
      "| HIP runtime | {} |\n",
      table_cell(rt.value("loaded", false) ? str(rt, "path") + (rt["file_version"].is_null() ? "" : " " + str(rt, "file_version")) : "not loaded"));
  const auto& hip = d.value("hip", nlohmann::json(nullptr));
  out += fmt::format("| HIP SDK / ROCm | {} |\n",
                     table_cell(hip.is_null() ? "not found" : str(hip, "version", "unknown version") + " at " + str(hip, "root")));
  std::string installed;
  for (const auto& c : r.value("installs", nlohmann::json::array())) {
    installed += fmt::format("{}{} {} ({}{})", installed.empty() ? "" : "; ", str(c, "component"), str(c, "current", "none"), str(c, "integrity"),
                             install_family(c));
  }
  out += fmt::format("| Installed | {} |\n", table_cell(installed.empty() ? "nothing installed by zcuda" : installed));
  const auto saved_verify = verify_results(r);
  out += fmt::format("| Verify | {} |\n", table_cell(verify_summary(saved_verify)));
  const auto level = evidence_level(r);
  std::string level_text = str(level, "label") + ": " + str(level, "meaning");
  if (!level.value("reason", "").empty()) level_text += " (" + str(level, "reason") + ")";
  out += fmt::format("| Level | {} |\n", table_cell(level_text));
  out += fmt::format("| Ready | {} |\n\n", d.value("ready", false) ? "yes" : "no");

  std::string findings;
  for (const auto& f : d.value("findings", nlohmann::json::array())) {
    findings += fmt::format("- **{}** `{}`: {}\n  - {}\n", str(f, "severity"), str(f, "code"), str(f, "message"), str(f, "hint", ""));
  }
  out += details("Findings", findings.empty() ? "None." : findings);

  std::string gpu_table = "| # | Name | vendor:device rev | gfx | VRAM | status | seen by |\n|---|---|---|---|---|---|---|\n";
  for (const auto& g : d.value("gpus", nlohmann::json::array())) {
    gpu_table += fmt::format("| {} | {} | {:04x}:{:04x} {} | {} | {} | {} | {} |\n", str(g, "hip_index", "-"), table_cell(str(g, "name")),
                             g.value("vendor_id", 0u), g.value("device_id", 0u),
                             g["revision"].is_number() ? fmt::format("{:02x}", g["revision"].get<unsigned>()) : "", str(g, "gfx"),
                             g["vram_bytes"].is_number() ? format_bytes(g["vram_bytes"].get<std::uint64_t>()) : "—", str(g, "status"),
                             table_cell(json_text(g.value("seen_by", nlohmann::json::array()), -1)));
  }
  out += details("GPUs", gpu_table);

  if (!hip.is_null()) {
    std::string libs = "| component | found | file |\n|---|---|---|\n";
    for (const auto& l : hip.value("libraries", nlohmann::json::array())) {
      libs += fmt::format("| {} | {} | {} |\n", str(l, "component"), l.value("found", false) ? "yes" : "no", table_cell(str(l, "path", "")));
    }
    for (const auto& [gfx, k] : member(hip, "kernels").items()) {
      libs += fmt::format("\nKernels for {}: rocBLAS {}, hipBLASLt {}\n", gfx, k.value("rocblas", false) ? "yes" : "no",
                          k.value("hipblaslt", false) ? "yes" : "no");
    }
    out += details("HIP SDK / ROCm libraries and kernels", libs);
  }

  std::string installs;
  for (const auto& c : r.value("installs", nlohmann::json::array())) {
    installs += fmt::format("- {} {}: integrity {}{}", str(c, "component"), str(c, "current", "none"), str(c, "integrity"), install_family(c));
    if (c.contains("files_checked"))
      installs += fmt::format(" ({} files checked, {} missing, {} changed)", c["files_checked"].get<int>(), c["files_missing"].get<int>(),
                              c["files_changed"].get<int>());
    installs += "\n";
    if (c.contains("artifact") && c["artifact"].is_object()) {
      installs += fmt::format("  - from {} (sha256 {})\n", str(c["artifact"], "url"), str(c["artifact"], "sha256"));
    }
  }
  out += details("Installed components", installs.empty() ? "Nothing installed by zcuda." : installs);

  if (!saved_verify) {
    out += details("Verify", "The saved verify results could not be read: " + saved_verify.error().message);
  } else if (!*saved_verify) {
    out += details("Verify", "`zcuda verify` has not been run on this machine.");
  } else {
    const verify::Report& v = **saved_verify;
    std::string text = fmt::format("Stack: {}; device: {}\n\n| check | status | detail | library |\n|---|---|---|---|\n", v.stack(),
                                   table_cell(v.device().empty() ? "—" : v.device()));
    for (const auto& c : v.checks) {
      const std::string lib = c.libraries.empty() ? "" : c.libraries.front().path;
      text += fmt::format("| {} | {} | {} | {} |\n", c.name, to_string(c.status), table_cell(c.detail), table_cell(lib));
    }
    out += details("Verify results", text);
  }

  std::string runs;
  for (const auto& run : r.value("runs", nlohmann::json::array())) {
    auto record = parse_record<launch::RunRecord>(run, "run record");
    if (!record) {
      runs += fmt::format("- (a run record that cannot be read: {})\n", table_cell(record.error().message));
      continue;
    }
    runs +=
        fmt::format("- {} `{}`: {} after {} s{}\n", record->started_utc, table_cell(record->program),
                    record->signal ? fmt::format("signal {}", *record->signal) : fmt::format("exit {}", record->exit_code), record->seconds,
                    record->explained ? fmt::format("; known failure: {} (`{}`)", table_cell(record->explained->title), record->explained->id) : "");
  }
  out += details("Recent runs", runs.empty() ? "No runs recorded." : runs);

  std::string benches;
  for (const auto& b : r.value("bench", nlohmann::json::array())) {
    const auto& c = member(b, "comparison");
    benches += fmt::format("- {} `{}`: **{}**; output {}\n", str(b, "started"), table_cell(str(member(b, "app"), "path")),
                           table_cell(str(c, "summary")), b.value("output_verified", false) ? "verified by the check on every run" : "not verified");
    for (const auto& v : b.value("variants", nlohmann::json::array())) {
      const auto& runtime = member(v, "runtime");
      benches += fmt::format("  - {} ({}): runtime {}{}, median {} of {} values\n", str(v, "name"), table_cell(str(v, "label")), str(runtime, "spec"),
                             runtime.contains("version") && runtime["version"].is_string() ? " " + runtime["version"].get<std::string>() : "",
                             v.contains("median") && v["median"].is_number() ? fmt::format("{:.6g}", v["median"].get<double>()) : "none",
                             v.value("values", nlohmann::json::array()).size());
    }
  }
  out += details("Application benchmarks (zcuda bench)", benches.empty() ? "No bench records." : benches);
  out += app_checks_markdown(r);

  const auto& env = r.value("environment", nlohmann::json::object());
  std::string env_text = "```\n";
  for (const auto& [name, value] : member(env, "variables").items()) env_text += fmt::format("{}={}\n", name, value.get<std::string>());
  for (const auto& [name, entries] : member(env, "library_paths").items()) {
    for (const auto& e : entries) env_text += fmt::format("{} entry: {}\n", name, e.get<std::string>());
  }
  env_text += "```\n";
  out += details("Environment (allowlisted)", env_text);
  out += r.value("redacted", true) ? "_User and host names, the home folder, e-mail addresses and secrets are replaced by placeholders._\n"
                                   : "_Not redacted (--no-redact): check for private data before sharing._\n";
  return out;
}

}  // namespace zcuda::report
