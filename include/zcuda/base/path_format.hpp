#pragma once
// How a path appears in messages: in double quotes, as the user would type it, in UTF-8 on every
// platform. fmt's own formatter (fmt/std.h) escapes backslashes, which doubles every separator of
// a Windows path ("C:\\Users\\..."); zcuda includes this header instead of fmt/std.h. Control
// characters (from a hostile archive, say) are still written as \xNN, never sent to the terminal.
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

template <>
struct fmt::formatter<std::filesystem::path> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const std::filesystem::path& path, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::u8string utf8 = path.u8string();
    std::string text = "\"";
    for (char8_t c : utf8) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f) {
        text += fmt::format("\\x{:02x}", byte);
      } else {
        text += static_cast<char>(byte);
      }
    }
    text += '"';
    return fmt::formatter<std::string_view>::format(text, ctx);
  }
};
