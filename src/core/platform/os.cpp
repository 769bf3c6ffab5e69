#include <zcuda/platform/os.hpp>

#include <cstdlib>
#include <string>

#ifdef _WIN32
#include <windows.h>
#include <shellapi.h>

#include "utf8_win32.hpp"
#endif

namespace zcuda::platform {

Os current_os() {
#ifdef _WIN32
  return Os::windows;
#else
  return Os::linux;
#endif
}

std::string_view os_id(Os os) { return os == Os::windows ? "windows" : "linux"; }

std::optional<Os> os_from_id(std::string_view id) {
  if (id == os_id(Os::linux)) return Os::linux;
  if (id == os_id(Os::windows)) return Os::windows;
  return std::nullopt;
}

char path_list_separator() { return current_os() == Os::windows ? ';' : ':'; }

#ifdef _WIN32
namespace {

using win32::narrow;
using win32::widen;
}  // namespace

std::optional<std::string> get_env(std::string_view name) {
  std::wstring wname = widen(name);
  DWORD n = GetEnvironmentVariableW(wname.c_str(), nullptr, 0);
  if (n == 0) return std::nullopt;
  std::wstring value(n, L'\0');
  n = GetEnvironmentVariableW(wname.c_str(), value.data(), n);
  value.resize(n);
  return narrow(value);
}

std::vector<std::string> command_line_arguments(int argc, char** argv) {
  int count = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (wide == nullptr) return {argv, argv + argc};
  std::vector<std::string> args;
  for (int i = 0; i < count; ++i) args.push_back(narrow(wide[i]));
  LocalFree(wide);
  return args;
}
#else
std::vector<std::string> command_line_arguments(int argc, char** argv) { return {argv, argv + argc}; }

std::optional<std::string> get_env(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}
#endif

}  // namespace zcuda::platform
