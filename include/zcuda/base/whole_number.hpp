#pragma once
// All of a text as one integer, or nothing. Counts, sizes, ids and version parts are read this
// way everywhere: std::from_chars alone would take "12abc" as 12.
#include <charconv>
#include <concepts>
#include <optional>
#include <string_view>

namespace zcuda {

// Nullopt for an empty text, anything after the digits, or a value that does not fit T.
template <std::integral T>
std::optional<T> whole_number(std::string_view text, int base = 10) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace zcuda
