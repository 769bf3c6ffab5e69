#include <zcuda/launch/runtime.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/core/path_format.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/utf8.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  const char* space = " \t\r\n";
  s.erase(s.find_last_not_of(space) + 1);
  s.erase(0, s.find_first_not_of(space));
  return s;
}

bool holds_driver(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "nvcuda.dll", ec) || fs::exists(dir / "libcuda.so.1", ec);
}

}  // namespace

Result<RuntimeLocation> locate_runtime(const std::optional<fs::path>& flag, const app::Home& home) {
  std::error_code ec;
  if (flag) {
    if (!fs::is_directory(*flag, ec)) {
      return fail(ErrorKind::not_found, fmt::format("The runtime folder {} does not exist", *flag),
                  "Pass --runtime-dir the folder that holds ZLUDA's libraries (nvcuda.dll or libcuda.so.1).");
    }
    return RuntimeLocation{fs::absolute(*flag), "--runtime-dir", std::nullopt};
  }
  const fs::path base = home.installs() / "zluda";
  const fs::path pointer = base / "current";
  const std::string none_hint = "Run 'zcuda install' to install ZLUDA, or pass --runtime-dir DIR with a ZLUDA folder.";
  if (!fs::exists(pointer, ec)) return fail(ErrorKind::not_found, "No ZLUDA runtime is installed", none_hint);
  auto text = platform::read_file(pointer, 4096);
  if (!text) return std::unexpected(text.error());
  const std::string version = trim(*text);
  if (version.empty() || version.find_first_of("/\\:") != std::string::npos || version == "." || version == "..") {
    return fail(ErrorKind::invalid_input, fmt::format("{} does not name a version", pointer), none_hint);
  }
  const fs::path dir = base / platform::path_from_utf8(version);
  // ZLUDA's archives hold one top folder, zluda/; accept the files at either level.
  for (const fs::path& candidate : {dir, dir / "zluda"}) {
    if (holds_driver(candidate)) return RuntimeLocation{candidate, "installed", version};
  }
  return fail(ErrorKind::not_found, fmt::format("The installed ZLUDA {} is missing from {}", version, dir),
              "Run 'zcuda install' again to repair it, or pass --runtime-dir DIR.");
}

}  // namespace zcuda::launch
