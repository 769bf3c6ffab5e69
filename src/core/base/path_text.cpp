#include <zcuda/base/path_text.hpp>

namespace zcuda {

// char8_t strings are UTF-8 by definition in both libstdc++ and MSVC's library.
std::filesystem::path path_from_utf8(std::string_view text) { return std::filesystem::path(std::u8string(text.begin(), text.end())); }

std::string path_to_utf8(const std::filesystem::path& path) {
  const std::u8string text = path.u8string();
  return std::string(text.begin(), text.end());
}

std::string generic_path_to_utf8(const std::filesystem::path& path) {
  const std::u8string text = path.generic_u8string();
  return std::string(text.begin(), text.end());
}

}  // namespace zcuda
