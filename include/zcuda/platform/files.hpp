#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <zcuda/core/error.hpp>

namespace zcuda::platform {

// Reads a whole file, refusing ones larger than `max_bytes` (sysfs and config files are small;
// the bound keeps a hostile or special file from exhausting memory).
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 16u << 20);

// Writes through a temporary sibling, flushes it to disk and renames it over `path`, so readers
// see the old content or the new, never a torn file.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Renames, retrying briefly when Windows reports the file in use (antivirus, indexers).
Status rename_with_retry(const std::filesystem::path& from, const std::filesystem::path& to);

// Error for a failed filesystem operation, with a hint chosen from the error (full disk,
// permissions, ...).
Error io_error(std::string_view action, const std::filesystem::path& path, std::error_code ec);

}  // namespace zcuda::platform
