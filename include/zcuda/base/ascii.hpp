#pragma once
// ASCII case folding. Names zcuda compares without case (file names on Windows, HTTP headers,
// PCI vendor text, digests) are ASCII; std::tolower would depend on the C locale and is
// undefined for negative chars, so one locale-free copy serves every module.
#include <string>
#include <string_view>

namespace zcuda {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string ascii_lower(std::string_view text);
std::string ascii_upper(std::string_view text);

// Equal when compared without ASCII case.
bool ascii_iequals(std::string_view a, std::string_view b);

// Whether `text` holds `lowered` (already lower case) without ASCII case; no copy is made, so a
// walk over thousands of file names can rule most of them out cheaply.
bool ascii_icontains(std::string_view text, std::string_view lowered);

}  // namespace zcuda
