// zcuda-test-child: a small program the tests start where they need a child process that behaves
// in a given way, the same on Linux and Windows (no shell needed). Its arguments are actions done
// in order:
//   out TEXT | err TEXT      write TEXT to stdout / stderr
//   env NAME                 write NAME's value, or <unset>
//   cwd                      write the current folder
//   sleep MS                 wait MS milliseconds
//   touch FILE               create FILE
//   spawn MS FILE            start a grandchild that sleeps MS and then creates FILE; do not wait
//   crash                    die of an access violation (SIGSEGV)
//   signal N                 POSIX: raise signal N
//   exit N                   exit with code N
//   argdump ARGS...          write each remaining argument as "arg:<hex bytes>" lines, then exit
//                            with the code in ARGDUMP_EXIT (0 when unset)
//   series NAME COUNT BASE   write COUNT lines "NAME <value>": first a warm-up value (BASE/10),
//                            then BASE times ZCUDA_TEST_FACTOR (default 1) with +-1% noise that
//                            is fixed by ZCUDA_TEST_SEED, ZCUDA_BENCH_VARIANT and ZCUDA_BENCH_RUN
//   appendenv FILE NAMES...  append the values of the named variables, space-separated, as one
//                            line to FILE (a record of which run came when)
//   appendself FILE          append this program's file name and ZCUDA_BENCH_VARIANT as one line
//                            to FILE (which copy of it ran: a fake interpreter for bench --b-program)
// Text is UTF-8 on every platform (Windows: from the wide command line the C runtime parsed).
#include <chrono>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <spawn.h>
#include <unistd.h>
extern char** environ;
#endif

namespace {

#ifdef _WIN32
std::string narrow(const std::wstring& text) {
  if (text.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<std::size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n, nullptr, nullptr);
  return out;
}
#endif

std::filesystem::path to_path(const std::string& utf8) { return std::filesystem::path(std::u8string(utf8.begin(), utf8.end())); }

std::string from_path(const std::filesystem::path& path) {
  const auto text = path.u8string();
  return std::string(text.begin(), text.end());
}

void write(std::FILE* stream, const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

std::string env_value(const std::string& name) {
#ifdef _WIN32
  std::wstring wide(to_path(name).wstring());
  const DWORD n = GetEnvironmentVariableW(wide.c_str(), nullptr, 0);
  if (n == 0) return "<unset>";
  std::wstring value(n, L'\0');
  value.resize(GetEnvironmentVariableW(wide.c_str(), value.data(), n));
  return narrow(value);
#else
  const char* value = std::getenv(name.c_str());
  return value ? value : "<unset>";
#endif
}

void spawn(const std::string& self, const std::string& ms, const std::string& file) {
#ifdef _WIN32
  // Quoting is trivial here: the tests pass paths without quotes.
  std::wstring line = L"\"" + to_path(self).wstring() + L"\" sleep " + to_path(ms).wstring() + L" touch \"" + to_path(file).wstring() + L"\"";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  if (CreateProcessW(nullptr, line.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup, &info)) {
    CloseHandle(info.hThread);
    CloseHandle(info.hProcess);
  }
#else
  std::vector<std::string> args = {self, "sleep", ms, "touch", file};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ);
#endif
}

int run(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& action = args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        write(stderr, "zcuda-test-child: " + action + " needs a value\n");
        std::exit(125);
      }
      return args[++i];
    };
    if (action == "out") {
      write(stdout, next());
    } else if (action == "err") {
      write(stderr, next());
    } else if (action == "env") {
      write(stdout, env_value(next()));
    } else if (action == "cwd") {
      write(stdout, from_path(std::filesystem::current_path()));
    } else if (action == "sleep") {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoll(next())));
    } else if (action == "touch") {
      std::ofstream(to_path(next())) << "";
    } else if (action == "spawn") {
      const std::string ms = next();
      spawn(args[0], ms, next());
    } else if (action == "crash") {
      volatile int* nowhere = nullptr;
      *nowhere = 1;
    } else if (action == "signal") {
      std::raise(std::stoi(next()));
    } else if (action == "exit") {
      return std::stoi(next());
    } else if (action == "series") {
      const std::string name = next();
      const long count = std::stol(next());
      const double base = std::stod(next());
      const std::string factor = env_value("ZCUDA_TEST_FACTOR");
      const double scale = factor == "<unset>" ? 1.0 : std::stod(factor);
      // A small LCG: the same noise for the same seed, variant and run on every platform.
      std::uint64_t state = 14695981039346656037ull;  // FNV-1a of the seed text
      for (const char c : env_value("ZCUDA_TEST_SEED") + "/" + env_value("ZCUDA_BENCH_VARIANT") + "/" + env_value("ZCUDA_BENCH_RUN")) {
        state = (state ^ static_cast<unsigned char>(c)) * 1099511628211ull;
      }
      for (long k = 0; k < count; ++k) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const double noise = (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.02;
        const double value = k == 0 ? base / 10 : base * scale * (1 + noise);
        char line[128];
        std::snprintf(line, sizeof line, "%s %.6f\n", name.c_str(), value);
        write(stdout, line);
      }
    } else if (action == "appendenv") {
      std::ofstream file(to_path(next()), std::ios::app | std::ios::binary);  // "\n", not "\r\n", on Windows
      std::string line;
      for (++i; i < args.size(); ++i) line += (line.empty() ? "" : " ") + env_value(args[i]);
      file << line << "\n";
    } else if (action == "appendself") {
      std::ofstream file(to_path(next()), std::ios::app | std::ios::binary);
      file << from_path(to_path(args[0]).filename()) << " " << env_value("ZCUDA_BENCH_VARIANT") << "\n";
    } else if (action == "argdump") {
      static const char* digits = "0123456789abcdef";
      for (++i; i < args.size(); ++i) {
        std::string line = "arg:";
        for (const char ch : args[i]) {
          const auto c = static_cast<unsigned char>(ch);
          line += digits[c >> 4];
          line += digits[c & 15];
        }
        write(stdout, line + "\n");
      }
      const std::string code = env_value("ARGDUMP_EXIT");
      return code == "<unset>" ? 0 : std::stoi(code);
    } else {
      write(stderr, "zcuda-test-child: unknown action " + action + "\n");
      return 125;
    }
  }
  return 0;
}

}  // namespace

#ifdef _WIN32
int wmain(int argc, wchar_t** argv) {
  // Bytes as written ("\n", not "\r\n"), as on Linux.
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  std::vector<std::string> args;
  // argv[0] as a full path, so that spawn can start this program again.
  wchar_t self[32768];
  const DWORD n = GetModuleFileNameW(nullptr, self, 32768);
  args.push_back(narrow(std::wstring(self, n)));
  for (int i = 1; i < argc; ++i) args.push_back(narrow(argv[i]));
  return run(args);
}
#else
int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  args[0] = std::filesystem::read_symlink("/proc/self/exe").string();
  return run(args);
}
#endif
