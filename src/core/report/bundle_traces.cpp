// Which trace files of a traced run go into a bundle: text only (redaction works on text; a
// binary file, such as a compiled kernel zluda_trace saved, could carry paths and names that no
// pattern finds), up to a size bound, each file left out said with its reason.
#include <zcuda/report/report.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::report {

namespace fs = std::filesystem;

namespace {

// The file's place under the trace folder, with forward slashes, as a zip names entries.
std::string entry_name(const fs::path& file, const fs::path& folder) {
  fs::path relative = file.lexically_relative(folder);
  if (relative.empty() || *relative.begin() == "..") relative = file.filename();
  std::string out = "traces";
  for (const auto& part : relative) out += "/" + zcuda::path_to_utf8(part);
  return out;
}

}  // namespace

BundleTraces gather_traces(const std::vector<launch::RunRecord>& newest_first, const Redactor& redactor, std::uintmax_t max_bytes) {
  BundleTraces out;
  out.max_bytes = max_bytes;
  auto run = std::find_if(newest_first.begin(), newest_first.end(), [](const launch::RunRecord& r) { return r.traces.has_value(); });
  if (run == newest_first.end()) return out;
  out.run_started_utc = run->started_utc;
  out.program = run->program;
  out.folder = run->traces->folder;
  const fs::path folder = zcuda::path_from_utf8(run->traces->folder);
  // zluda_trace's own log first: it says what the program called, the rest are its modules.
  std::vector<std::string> sources = run->traces->files;
  std::stable_partition(sources.begin(), sources.end(), [](const std::string& s) { return zcuda::path_from_utf8(s).filename() == "log.txt"; });
  std::uintmax_t used = 0;
  for (const auto& source : sources) {
    BundleTrace trace;
    trace.source = source;
    const fs::path file = zcuda::path_from_utf8(source);
    std::error_code ec;
    trace.size = fs::file_size(file, ec);
    if (ec) {
      trace.size = 0;
      trace.left_out = "missing: removed since the run";
    } else if (trace.size > max_bytes - used) {
      trace.left_out =
          fmt::format("over the bundle's size bound for traces ({} bytes; {} of {} bytes were left)", trace.size, max_bytes - used, max_bytes);
    } else if (auto text = platform::read_file(file, static_cast<std::size_t>(max_bytes - used)); !text) {
      trace.left_out = "unreadable: " + text.error().message;
    } else if (text->find('\0') != std::string::npos) {
      trace.left_out = "binary (not text, so it cannot be redacted): attach it yourself if a maintainer asks for it";
    } else {
      used += text->size();
      trace.entry = entry_name(file, folder);
      trace.text = redactor.apply(*text);
    }
    out.files.push_back(std::move(trace));
  }
  return out;
}

nlohmann::json to_json(const BundleTraces& traces) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& f : traces.files) {
    files.push_back({{"source", f.source},
                     {"entry", f.entry.empty() ? json(nullptr) : json(f.entry)},
                     {"bytes", f.size},
                     {"left_out", f.left_out.empty() ? json(nullptr) : json(f.left_out)}});
  }
  return {{"run_started_utc", traces.run_started_utc ? json(*traces.run_started_utc) : json(nullptr)},
          {"program", traces.program},
          {"folder", traces.folder},
          {"max_bytes", traces.max_bytes},
          {"files", std::move(files)}};
}

nlohmann::json traces_manifest(const BundleTraces& traces, const Redactor& redactor) {
  nlohmann::json manifest = to_json(traces);
  redactor.apply(manifest);
  return manifest;
}

}  // namespace zcuda::report
