#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <zcuda/base/error.hpp>
#include <zcuda/base/io_error.hpp>

namespace zcuda::platform {

// Reads a whole file, refusing ones larger than `max_bytes` (sysfs and config files are small;
// the bound keeps a hostile or special file from exhausting memory).
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 16u << 20);

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
