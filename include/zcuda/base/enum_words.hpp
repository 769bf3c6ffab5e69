#pragma once
// Reading a fixed set back from the word its to_string writes (records, JSON, flags): one loop
// instead of one per enum. to_string is found beside the enum, by argument-dependent lookup.
#include <initializer_list>
#include <optional>
#include <string_view>

namespace zcuda {

template <class Enum>
std::optional<Enum> enum_from_word(std::string_view word, std::initializer_list<Enum> every) {
  for (Enum value : every) {
    if (to_string(value) == word) return value;
  }
  return std::nullopt;
}

}  // namespace zcuda
