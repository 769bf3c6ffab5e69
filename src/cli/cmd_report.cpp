// zcuda report: what a bug ticket needs, redacted; `report merge` builds a compatibility matrix.
#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/report/report.hpp>
#include <zcuda/base/path_text.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct ReportOptions {
  std::optional<std::filesystem::path> output;
  std::optional<std::filesystem::path> bundle;
  bool no_redact = false;
  bool no_hash = false;
  std::vector<std::filesystem::path> merge_files;
  CLI::App* merge = nullptr;
};

Result<CommandOutput> write_or_print(const ReportOptions& options, const Context& context, nlohmann::json json, std::string markdown) {
  CommandOutput output;
  output.json = std::move(json);
  output.text = std::move(markdown);
  if (options.output) {
    std::string content = context.options.json ? json_text(output.json) + "\n" : output.text;
    if (auto written = platform::write_file_atomic(*options.output, content); !written) return std::unexpected(written.error());
    // The file holds the report; the terminal gets a one-line receipt.
    output.text = fmt::format("Report written to {}\n", *options.output);
    output.json = {{"written", path_to_utf8(*options.output)}};
  }
  return output;
}

}  // namespace

CommandRun setup_report(CLI::App& sub) {
  auto options = std::make_shared<ReportOptions>();
  add_path_option(sub, "-o,--output", options->output, "Write the report to FILE (Markdown, or JSON with --json)")->type_name("FILE");
  add_path_option(sub, "--bundle", options->bundle, "Also write a zip with report.json, report.md and the redacted logs")->type_name("FILE");
  sub.add_flag("--no-redact", options->no_redact, "Keep user and host names, the home folder, e-mail addresses and secrets (check before sharing)");
  sub.add_flag("--no-hash", options->no_hash, "Check installed files by size only, without re-hashing them");
  sub.require_subcommand(0, 1);
  options->merge = sub.add_subcommand("merge", "Merge JSON reports from many machines into a compatibility matrix");
  add_path_option(*options->merge, "files", options->merge_files, "JSON reports (zcuda report --json --output FILE)")
      ->required()
      ->check(kExistingFile);
  add_path_option(*options->merge, "-o,--output", options->output, "Write the matrix to FILE (Markdown, or JSON with --json)")->type_name("FILE");
  options->merge->fallthrough();
  sub.footer("Redaction is on by default: user and host names, the home folder, e-mail addresses and tokens become placeholders.");

  return [options](Context& context) -> Result<CommandOutput> {
    if (options->merge->parsed()) {
      auto matrix = report::merge(options->merge_files);
      if (!matrix) return std::unexpected(matrix.error());
      return write_or_print(*options, context, *matrix, report::render_matrix_markdown(*matrix));
    }
    report::CollectOptions collect;
    collect.home = context.home;
    collect.environment = platform::current_environment();
    collect.redact = !options->no_redact;
    collect.hash_installed_files = !options->no_hash;
    auto json = report::collect(collect);
    if (!json) return std::unexpected(json.error());
    std::string markdown = report::render_markdown(*json);
    report::BundleTraces traces;
    nlohmann::json traces_summary;
    if (options->bundle) {
      const report::Redactor redactor = report::redactor_for(collect);
      traces = report::gather_traces(launch::recent_run_records(context.home, collect.max_runs), redactor);
      if (auto bundled = report::write_bundle(*options->bundle, *json, markdown, context.home.logs, redactor, traces); !bundled) {
        return std::unexpected(bundled.error());
      }
      traces_summary = report::traces_manifest(traces, redactor);
    }
    auto output = write_or_print(*options, context, std::move(*json), std::move(markdown));
    if (output && options->bundle) {
      output->text += fmt::format("Bundle written to {}\n", *options->bundle);
      output->json["bundle"] = path_to_utf8(*options->bundle);
      if (traces.run_started_utc) {
        const auto taken = std::count_if(traces.files.begin(), traces.files.end(), [](const auto& f) { return f.left_out.empty(); });
        const auto left = static_cast<std::ptrdiff_t>(traces.files.size()) - taken;
        output->text += fmt::format("It holds {} trace file(s) of the traced run at {}{}\n", taken, *traces.run_started_utc,
                                    left ? fmt::format("; {} left out (traces/manifest.json says why)", left) : std::string());
        output->json["bundle_traces"] = std::move(traces_summary);
      }
    }
    return output;
  };
}

}  // namespace zcuda::cli
