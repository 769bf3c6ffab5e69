#pragma once
// ASCII text as PowerShell 5.1's `>` and `|` write it: UTF-16LE, with or without its BOM.
#include <string>
#include <string_view>

namespace zcuda::test {

inline std::string utf16le(std::string_view ascii, bool bom) {
  std::string out = bom ? "\xFF\xFE" : "";
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

}  // namespace zcuda::test
