// A stand-in for ZLUDA's zluda_precompile: appends "arg:<text>" per argument to the file that
// FAKE_PRECOMPILE_LOG names, and fails (exit 3, a message on stderr) for a file whose name holds
// "broken", so the tests see exactly what zcuda warmup asked of it.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#endif

namespace {

int fake_main(const std::vector<std::string>& args) {
  // The log's path may hold any letter: Windows gives it as UTF-16 (getenv would give the ANSI code page).
#ifdef _WIN32
  const wchar_t* raw = _wgetenv(L"FAKE_PRECOMPILE_LOG");
  const std::optional<std::filesystem::path> log = raw ? std::optional<std::filesystem::path>(raw) : std::nullopt;
#else
  const char* raw = std::getenv("FAKE_PRECOMPILE_LOG");
  const std::optional<std::filesystem::path> log = raw ? std::optional<std::filesystem::path>(raw) : std::nullopt;
#endif
  if (log) {
    std::ofstream out(*log, std::ios::binary | std::ios::app);
    for (const auto& a : args) out << "arg:" << a << "\n";
  }
  std::printf("compiling %zu file(s)\n", args.size());
  for (const auto& a : args) {
    if (a.find("broken") != std::string::npos) {
      std::fprintf(stderr, "error: no kernels could be compiled from %s\n", a.c_str());
      return 3;
    }
  }
  return 0;
}

}  // namespace

#ifdef _WIN32
int wmain(int argc, wchar_t** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, nullptr, 0, nullptr, nullptr);
    std::string s(static_cast<std::size_t>(n > 0 ? n - 1 : 0), '\0');
    if (n > 1) WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, s.data(), n, nullptr, nullptr);
    args.push_back(s);
  }
  return fake_main(args);
}
#else
int main(int argc, char** argv) { return fake_main(std::vector<std::string>(argv + 1, argv + argc)); }
#endif
