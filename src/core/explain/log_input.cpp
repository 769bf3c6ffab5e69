// Reading a log for `zcuda explain`: a regular file (--file LOG) or standard input (a pipe, a
// redirected file, `--file -`), bounded by kLogCap; a longer one keeps its end, where a failed
// program's fatal message is.
#include <zcuda/explain/explain.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/base/units.hpp>

namespace zcuda::explain {

LogInput log_from_tail(platform::StreamTail tail, std::string source) {
  LogInput out;
  out.source = std::move(source);
  out.total = tail.total;
  out.cut = tail.cut();
  if (!out.cut) {
    out.text = std::move(tail.tail);
    return out;
  }
  std::string kept = std::move(tail.tail);
  const bool utf16_le = tail.head.starts_with("\xFF\xFE");
  const bool utf16_be = tail.head.starts_with("\xFE\xFF");
  // UTF-16 comes in pairs of bytes from the stream's start: what was dropped must be even.
  if ((out.total - kept.size()) % 2 != 0) kept.erase(0, 1);
  // The first line is a piece of a line: start at the next one (in UTF-16 the newline's pair).
  const std::size_t newline = kept.find('\n');
  if (newline != std::string::npos) {
    std::size_t from = newline + 1;
    if (from % 2 == 1 && from < kept.size() && kept[from] == '\0') ++from;  // UTF-16LE's "\n\0", with a BOM or without
    kept.erase(0, std::min(from, kept.size()));
  }
  // The BOM was at the start that was dropped: keep saying which UTF-16 this is.
  if (utf16_le) kept.insert(0, "\xFF\xFE");
  if (utf16_be) kept.insert(0, "\xFE\xFF");
  out.text = std::move(kept);
  return out;
}

Result<LogInput> read_log_file(const std::filesystem::path& path, std::size_t max_bytes) {
  auto tail = platform::read_file_tail(path, max_bytes);
  if (!tail) {
    Error error = tail.error();
    if (error.kind == ErrorKind::unsupported) {
      error.hint = "--file reads a regular file. To read a pipe on purpose: `PROGRAM 2>&1 | zcuda explain` or `zcuda explain --file - < PIPE`.";
    }
    return std::unexpected(std::move(error));
  }
  return log_from_tail(std::move(*tail), fmt::format("{}", path));
}

Result<LogInput> read_log_stdin(std::size_t max_bytes) {
  auto tail = platform::read_stdin_tail(max_bytes);
  if (!tail) return std::unexpected(tail.error());
  return log_from_tail(std::move(*tail), "standard input");
}

std::string cut_notice(const LogInput& input) {
  return fmt::format("{} held {}; only its last {} were explained (line numbers count from there).", input.source, format_bytes(input.total),
                     format_bytes(input.text.size()));
}

}  // namespace zcuda::explain
