#include "echo_argv.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#include <shellapi.h>
#endif

#include "json_writer.hpp"

namespace zcuda::probe {

bool echo_argv_requested() {
  const char* value = std::getenv("ZCUDA_PROBE_ECHO_ARGV");
  return value != nullptr && std::string(value) == "1";
}

namespace {

std::vector<std::string> arguments(int argc, char** argv) {
#ifdef _WIN32
  (void)argc;
  (void)argv;
  std::vector<std::string> out;
  int count = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (wide == nullptr) return out;
  for (int i = 1; i < count; ++i) {
    const int n = WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 1u, '\0');
    if (n > 0) WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, text.data(), n, nullptr, nullptr);
    text.resize(text.size() - 1);  // the terminating NUL
    out.push_back(std::move(text));
  }
  LocalFree(wide);
  return out;
#else
  return std::vector<std::string>(argv + 1, argv + argc);
#endif
}

}  // namespace

int echo_argv(int argc, char** argv) {
  json::Array args;
  for (const auto& a : arguments(argc, argv)) args.str(a);
  json::Object out;
  out.raw("echo_argv", args.text());
  std::printf("%s\n", out.text().c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace zcuda::probe
