#pragma once
#include <filesystem>
#include <string_view>
#include <system_error>

#include <zcuda/base/error.hpp>

namespace zcuda {

// Error for a failed filesystem operation, with a hint chosen from the error (full disk,
// permissions, ...).
Error io_error(std::string_view action, const std::filesystem::path& path, std::error_code ec);

}  // namespace zcuda
