// The --bundle zip: report.json, report.md, the redacted logs and traces, written through a temporary
// file and renamed, so a failed write leaves nothing behind.
#include <zcuda/base/path_text.hpp>
#include <zcuda/report/report.hpp>

#include <archive.h>
#include <archive_entry.h>

#include <ctime>

#include <fmt/format.h>

#include <zcuda/archive/native_names.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::report {

namespace fs = std::filesystem;

namespace {

// ::archive is libarchive's; a unity batch may also see the zcuda::archive module's namespace.
struct ArchiveWriter {
  ::archive* a = archive_write_new();
  ~ArchiveWriter() { archive_write_free(a); }
  ArchiveWriter() = default;
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;
};

Status add_entry(::archive* a, const std::string& name, const std::string& content) {
  ::archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, name.c_str());
  archive_entry_set_size(entry, static_cast<la_int64_t>(content.size()));
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, 0644);
  archive_entry_set_mtime(entry, std::time(nullptr), 0);
  int rc = archive_write_header(a, entry);
  archive_entry_free(entry);
  if (rc != ARCHIVE_OK || archive_write_data(a, content.data(), content.size()) != static_cast<la_ssize_t>(content.size())) {
    return fail(ErrorKind::io,
                fmt::format("Could not add {} to the bundle: {}", name, archive_error_string(a) ? archive_error_string(a) : "unknown error"));
  }
  return {};
}

// Logs can be long: the end holds the recent commands a bug report is about.
std::string tail(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  auto start = text.find('\n', text.size() - limit);
  return "[... earlier lines omitted ...]\n" + text.substr(start == std::string::npos ? text.size() - limit : start + 1);
}

}  // namespace

Status write_bundle(const fs::path& zip, const nlohmann::json& report, const std::string& markdown, const fs::path& logs_folder,
                    const Redactor& redactor, const BundleTraces& traces) {
  fs::path temp = zip;
  temp += ".partial";
  {
    ArchiveWriter writer;
    archive_write_set_format_zip(writer.a);
    const int opened = libarchive_names::open_write(writer.a, temp.c_str());
    if (opened != ARCHIVE_OK) {
      return fail(ErrorKind::io, fmt::format("Could not create {}: {}", zip, archive_error_string(writer.a)),
                  "Choose a folder you can write for --bundle.");
    }
    auto status = add_entry(writer.a, "report.json", json_text(report) + "\n");
    if (status) status = add_entry(writer.a, "report.md", markdown);
    std::error_code ec;
    std::vector<fs::path> logs;
    for (fs::directory_iterator it(logs_folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (path_to_utf8(it->path().filename()).rfind("zcuda", 0) == 0) logs.push_back(it->path());
    }
    std::sort(logs.begin(), logs.end());
    for (const auto& log : logs) {
      if (!status) break;
      auto text = platform::read_file(log, 64u << 20);
      if (!text) continue;
      status = add_entry(writer.a, "logs/" + path_to_utf8(log.filename()), redactor.apply(tail(*text, 2u << 20)));
    }
    for (const auto& trace : traces.files) {
      if (!status) break;
      if (!trace.entry.empty()) status = add_entry(writer.a, trace.entry, trace.text);
    }
    if (status && traces.run_started_utc) {
      status = add_entry(writer.a, "traces/manifest.json", json_text(traces_manifest(traces, redactor)) + "\n");
    }
    if (status && archive_write_close(writer.a) != ARCHIVE_OK) {
      status = fail(ErrorKind::io, fmt::format("Could not finish {}: {}", zip, archive_error_string(writer.a)));
    }
    if (!status) {
      fs::remove(temp, ec);
      return status;
    }
  }
  if (auto renamed = platform::rename_with_retry(temp, zip); !renamed) {
    std::error_code ec;
    fs::remove(temp, ec);
    return renamed;
  }
  return {};
}

}  // namespace zcuda::report
