#pragma once
// `zcuda report`: everything a maintainer needs about this machine and what was tried on it,
// redacted, as JSON, as Markdown for a GitHub issue, or as a zip bundle with the logs.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/report/redact.hpp>

namespace zcuda::report {

inline constexpr int kReportSchema = 1;

struct CollectOptions {
  home::Home home;
  platform::Environment environment;
  bool redact = true;
  bool hash_installed_files = true;  // re-hash installed files against their receipts
  std::size_t max_runs = 10;         // most recent run records included
  std::size_t max_benches = 5;       // most recent bench records included
  std::size_t max_app_checks = 10;   // most recent application checks (verify --app) included
  // Whether an application bench with an output check has passed on this machine: the evidence
  // for the ladder's top level, which verify cannot see. Whoever knows sets it.
  bool application_verified = false;
};

// The report as JSON (docs/report.md), redacted unless options.redact is false. Works on a
// machine with nothing installed or verified: absent parts say so.
Result<nlohmann::json> collect(const CollectOptions& options);

// The Redactor collect() uses, for redacting other output (logs in a bundle).
Redactor redactor_for(const CollectOptions& options);

// The evidence ladder's level for a report (include/zcuda/verify/ladder.hpp): from its verify
// results and its "application_verified" flag. {"id", "label", "meaning", "reason"}.
nlohmann::json evidence_level(const nlohmann::json& report);

// Markdown for a GitHub issue: a summary, then collapsible details.
std::string render_markdown(const nlohmann::json& report);

// The trace files (zcuda run --trace) a bundle takes, from the newest run record that has traces
// (docs/report.md, "Traces in a bundle"): text files redacted, up to `max_bytes` in all; binary
// files, files past the bound and files that are gone are left out, each with the reason.
// 4 MiB: redaction (std::regex, a dozen rules) takes seconds per MiB, and a bundle goes into an issue.
inline constexpr std::uintmax_t kBundleTraceBytes = 4u << 20;

struct BundleTrace {
  std::string source;       // the file, as the run record names it
  std::string entry;        // its name in the zip ("traces/..."); empty when left out
  std::uintmax_t size = 0;  // on disk, when it could be read
  std::string left_out;     // why it is not in the bundle; empty when it is
  std::string text;         // the redacted content
};

struct BundleTraces {
  std::optional<std::string> run_started_utc;  // the traced run; none when no recent run has traces
  std::string program;
  std::string folder;
  std::vector<BundleTrace> files;
  std::uintmax_t max_bytes = kBundleTraceBytes;
};

BundleTraces gather_traces(const std::vector<launch::RunRecord>& newest_first, const Redactor& redactor,
                           std::uintmax_t max_bytes = kBundleTraceBytes);
// What was taken and what was left out, without the content (traces/manifest.json; not redacted).
nlohmann::json to_json(const BundleTraces& traces);
// traces/manifest.json as the bundle holds it and report --json shows it: to_json, redacted.
nlohmann::json traces_manifest(const BundleTraces& traces, const Redactor& redactor);

// A zip holding report.json, report.md, the redacted logs under home and the gathered traces
// (under traces/, with traces/manifest.json saying what was left out and why).
Status write_bundle(const std::filesystem::path& zip, const nlohmann::json& report, const std::string& markdown,
                    const std::filesystem::path& logs_folder, const Redactor& redactor, const BundleTraces& traces = {});

// Many reports -> a compatibility matrix (docs/report.md, "Merge").
Result<nlohmann::json> merge(const std::vector<std::filesystem::path>& files);
std::string render_matrix_markdown(const nlohmann::json& matrix);

}  // namespace zcuda::report
