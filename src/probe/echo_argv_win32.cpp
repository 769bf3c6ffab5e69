#include "echo_argv.hpp"

#include <windows.h>
#include <shellapi.h>

// Header-only UTF-8 <-> UTF-16 of the platform layer (windows.h only; no library to link).
#include "../core/platform/utf8_win32.hpp"

namespace zcuda::probe::os {

// The UTF-16 command line, split as the C runtime would: the arguments do not depend on the
// code page.
std::vector<std::string> arguments(int, char**) {
  std::vector<std::string> out;
  int count = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (wide == nullptr) return out;
  for (int i = 1; i < count; ++i) out.push_back(platform::win32::narrow(wide[i]));
  LocalFree(wide);
  return out;
}

}  // namespace zcuda::probe::os
