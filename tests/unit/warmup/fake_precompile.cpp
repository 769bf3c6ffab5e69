// A stand-in for ZLUDA's zluda_precompile that behaves as upstream's does
// (zluda_precompile/src/main.rs at vosen/ZLUDA 8a7931be): arguments `-d/--device N` (default 0),
// `--follow-links` and one path, a file or a folder walked recursively. It fails only before any
// work, as upstream's `main` returning an error does (`Error: "Failed to create ZLUDA context"`
// on stderr, exit 1) for a device that is not there; afterwards it exits 0 whatever happened per
// module and prints nothing, since its progress bars draw only on a terminal. It reads PE ("MZ")
// and ELF files only, and "compiles" each fatbin whose header carries FatbinHeader::MAGIC
// (0xBA55ED50) by adding a line to ZLUDA's cache database (zluda/ComputeCache/zluda2.db under
// the user's cache folder), as ZLUDA stores a compiled module; a file without one adds nothing.
// For the tests it also appends "arg:<text>" per argument and "env:HIP_VISIBLE_DEVICES=<value>"
// to the file FAKE_PRECOMPILE_LOG names; FAKE_PRECOMPILE_DEVICES is how many GPUs it sees (1).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#endif

namespace {

namespace fs = std::filesystem;

// A variable as a path (Windows: read as UTF-16; getenv would give the ANSI code page).
std::optional<fs::path> env_path(const char* name) {
#ifdef _WIN32
  std::wstring wide(name, name + std::char_traits<char>::length(name));
  const wchar_t* raw = _wgetenv(wide.c_str());
#else
  const char* raw = std::getenv(name);
#endif
  if (raw == nullptr || *raw == 0) return std::nullopt;
  return fs::path(raw);
}

// dirs::cache_dir(), as zluda_cache uses it: %LOCALAPPDATA% on Windows, else $XDG_CACHE_HOME or ~/.cache.
std::optional<fs::path> cache_database() {
#ifdef _WIN32
  auto root = env_path("LOCALAPPDATA");
#else
  auto root = env_path("XDG_CACHE_HOME");
  if (!root) {
    if (auto home = env_path("HOME")) root = *home / ".cache";
  }
#endif
  if (!root) return std::nullopt;
  return *root / "zluda" / "ComputeCache" / "zluda2.db";
}

// The fatbins a file holds: FatbinHeader::MAGIC (little-endian) wherever it appears.
int count_fatbins(const std::string& bytes) {
  const std::string magic = "\x50\xED\x55\xBA";
  int count = 0;
  for (auto at = bytes.find(magic); at != std::string::npos; at = bytes.find(magic, at + 4)) ++count;
  return count;
}

void compile_file(const fs::path& file, const fs::path& database) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 4) return;
  const bool pe = bytes[0] == 'M' && bytes[1] == 'Z';
  const bool elf = bytes.compare(0, 4,
                                 "\x7f"
                                 "ELF") == 0;
  if (!pe && !elf) return;
  // Upstream parses every ELF file as ELF64: a 32-bit one yields no fatbin section.
  if (elf && (bytes.size() < 5 || bytes[4] != 2)) return;
  const int modules = count_fatbins(bytes);
  if (modules == 0) return;
  fs::create_directories(database.parent_path());
  std::ofstream out(database, std::ios::binary | std::ios::app);
  for (int i = 0; i < modules; ++i) out << "module " << i << " of " << file.filename().string() << "\n";
}

int fake_main(const std::vector<std::string>& args) {
  if (auto log = env_path("FAKE_PRECOMPILE_LOG")) {
    std::ofstream out(*log, std::ios::binary | std::ios::app);
    for (const auto& a : args) out << "arg:" << a << "\n";
    const char* visible = std::getenv("HIP_VISIBLE_DEVICES");
    out << "env:HIP_VISIBLE_DEVICES=" << (visible ? visible : "") << "\n";
  }
  unsigned device = 0;
  bool follow_links = false;
  std::optional<fs::path> input;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "-d" || args[i] == "--device") && i + 1 < args.size()) {
      device = static_cast<unsigned>(std::stoul(args[++i]));
    } else if (args[i] == "--follow-links") {
      follow_links = true;
    } else {
      input = fs::path(std::u8string(args[i].begin(), args[i].end()));
    }
  }
  if (!input) {
    std::fprintf(stderr, "Expected <INPUT>, pass --help for usage information\n");
    return 1;
  }
  const char* devices = std::getenv("FAKE_PRECOMPILE_DEVICES");
  if (device >= static_cast<unsigned>(devices ? std::atoi(devices) : 1)) {
    std::fprintf(stderr, "Error: \"Failed to create ZLUDA context\"\n");
    return 1;
  }
  const auto database = cache_database();
  if (!database) return 0;
  std::error_code ec;
  if (fs::is_directory(*input, ec)) {
    const auto options = follow_links ? fs::directory_options::follow_directory_symlink : fs::directory_options::none;
    for (fs::recursive_directory_iterator it(*input, options, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) compile_file(it->path(), *database);
    }
  } else {
    compile_file(*input, *database);
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
