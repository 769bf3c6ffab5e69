#pragma once
#include <filesystem>
#include <string_view>
#include <system_error>

#include <zcuda/base/error.hpp>

namespace zcuda {

// Error for a failed filesystem operation, with a hint chosen from the error (full disk,
// permissions, ...).
Error io_error(std::string_view action, const std::filesystem::path& path, std::error_code ec);

// A file that could not be opened for reading: ErrorKind::not_found when it does not exist,
// otherwise io_error("read", ...).
Error open_for_reading_error(const std::filesystem::path& path, std::error_code ec);

}  // namespace zcuda
