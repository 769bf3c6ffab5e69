#pragma once
// The test child (support/test_child.cpp): where it is, and what its argdump action prints.
#include <filesystem>
#include <string>
#include <vector>

#include <zcuda/base/path_text.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::test {

// With native separators (CMake writes forward slashes), as the paths zcuda reports have them.
inline std::filesystem::path test_child() { return path_from_utf8(ZCUDA_TEST_CHILD).make_preferred(); }

// "arg:<hex bytes>\n" per argument, as `zcuda-test-child argdump ARGS...` writes them.
inline std::string argdump_output(const std::vector<std::string>& args) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const auto& a : args) {
    out += "arg:";
    for (const char ch : a) {
      const auto c = static_cast<unsigned char>(ch);
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    out += "\n";
  }
  return out;
}

}  // namespace zcuda::test
