#pragma once
// file:// URLs of local files, percent-encoded as RFC 8089 wants them: file:///tmp/a%20b on Linux,
// file:///C:/Users/a%20b on Windows. (The test folders hold a space and a non-ASCII letter.)
#include <filesystem>
#include <string>

namespace zcuda::test {

inline std::string file_url(const std::filesystem::path& path) {
  const std::u8string generic = std::filesystem::absolute(path).generic_u8string();
  const std::string text(generic.begin(), generic.end());
  static const char* digits = "0123456789ABCDEF";
  std::string out = text.starts_with("/") ? "file://" : "file:///";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
                       c == '/' || c == ':';
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

}  // namespace zcuda::test
