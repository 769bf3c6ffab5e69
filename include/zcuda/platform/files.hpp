#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <zcuda/base/error.hpp>
#include <zcuda/base/io_error.hpp>

namespace zcuda::platform {

// Whether `path` is a directory / a regular file (links followed); false also where it cannot be
// looked at, for the many checks that only ask whether something is there to use.
bool is_dir(const std::filesystem::path& path);
bool is_file(const std::filesystem::path& path);

// Reads a whole file, refusing ones larger than `max_bytes` (sysfs and config files are small;
// the bound keeps a hostile or special file from exhausting memory).
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 16u << 20);

// What reading a stream (or a file) to its end kept: at most its last `max_bytes` bytes (a log's
// failure is at its end), with its first bytes kept apart so that a BOM cut off is still known.
struct StreamTail {
  std::string head;         // the first (up to 4) bytes of the whole stream
  std::string tail;         // the last bytes, at most max_bytes
  std::uint64_t total = 0;  // every byte read
  bool cut() const { return total > tail.size(); }
};

// Reads `stream` to its end (never stopping early, so a writer on the other end of a pipe is
// not broken off), keeping its last `max_bytes` bytes.
Result<StreamTail> read_stream_tail(std::FILE* stream, std::size_t max_bytes);
// The same for standard input, switched to binary mode first (Windows' C runtime would turn
// "\r\n" into "\n" and stop at a Ctrl-Z byte).
Result<StreamTail> read_stdin_tail(std::size_t max_bytes);

// How a path that is not a regular file reads in a message ("a directory", "a FIFO (named
// pipe)", "a character device", ...), following links; nullopt for a regular file, and for a
// path that does not exist (`exists` false then).
std::optional<std::string> non_regular_kind(const std::filesystem::path& path, bool& exists);

// A regular file's last `max_bytes` bytes (and its first bytes), as read_stream_tail keeps them.
// Anything else is refused (ErrorKind::unsupported): a FIFO would wait for a writer forever,
// a device never ends.
Result<StreamTail> read_file_tail(const std::filesystem::path& path, std::size_t max_bytes);

// Whether an atomic write waits for the bytes to reach the disk before the rename: `flushed`
// survives a power cut (receipts, journals, results); `unflushed` only a crash of zcuda (a run
// record is not worth an fsync on every launch).
enum class Durability { flushed, unflushed };

// The one atomic file writer: writes through a uniquely named temporary sibling (creating the
// folder), flushes it to disk when `durability` asks, and renames it over `path`, so readers see
// the old content or the new, never a torn file.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content, Durability durability = Durability::flushed);

// Renames, retrying briefly when Windows reports the file in use (antivirus, indexers).
Status rename_with_retry(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace zcuda::platform
