#pragma once
// Paths as UTF-8 text and back, the same on every platform. std::filesystem's own narrow
// conversions differ: the ANSI code page with MSVC, bytes taken one by one as characters with
// MinGW's libstdc++. Text that names a file (from the command line, the environment, JSON) goes
// through these instead, so non-ASCII folders such as C:\Users\José work everywhere.
#include <filesystem>
#include <string>
#include <string_view>

namespace zcuda {

std::filesystem::path path_from_utf8(std::string_view text);
std::string path_to_utf8(const std::filesystem::path& path);
// With '/' separators on every platform.
std::string generic_path_to_utf8(const std::filesystem::path& path);

}  // namespace zcuda
