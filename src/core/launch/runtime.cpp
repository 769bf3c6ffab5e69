#include <zcuda/launch/runtime.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <spdlog/spdlog.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/install/adopt.hpp>
#include <zcuda/install/runtime_files.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  const char* space = " \t\r\n";
  s.erase(s.find_last_not_of(space) + 1);
  s.erase(0, s.find_first_not_of(space));
  return s;
}

std::optional<fs::path> installed_version_dir(const fs::path& base, const std::string& version) {
  return install::runtime_files_dir(base / path_from_utf8(version));
}

std::vector<std::string> installed_versions(const fs::path& base) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && installed_version_dir(base, path_to_utf8(it->path().filename()))) {
      out.push_back(path_to_utf8(it->path().filename()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::optional<RuntimeLocation>> locate_adopted(const std::string& name, const home::Home& home) {
  auto adopted = install::find_adopted(home, name);
  if (!adopted) return std::unexpected(adopted.error());
  if (!*adopted) return std::optional<RuntimeLocation>{};
  if (!(*adopted)->changed.empty()) spdlog::warn("{}", install::changed_warning(**adopted));
  return std::optional<RuntimeLocation>(RuntimeLocation{(*adopted)->dir, RuntimeChoice::installed, name, (*adopted)->receipt});
}

std::string_view to_string(RuntimeChoice choice) {
  switch (choice) {
    case RuntimeChoice::runtime_dir_flag:
      return "--runtime-dir";
    case RuntimeChoice::installed:
      return "installed";
    case RuntimeChoice::folder:
      return "folder";
  }
  return "installed";
}

Result<std::optional<RuntimeLocation>> locate_runtime_spec(const std::optional<std::string>& spec, const home::Home& home) {
  if (!spec) {
    auto located = locate_runtime(std::nullopt, home);
    if (!located) return std::unexpected(located.error());
    return std::optional<RuntimeLocation>(*located);
  }
  if (*spec == "native") return std::optional<RuntimeLocation>();
  const fs::path base = home.installs() / "zluda";
  const bool looks_like_path = spec->find_first_of("/\\") != std::string::npos;
  if (!looks_like_path && !spec->empty() && *spec != "." && *spec != "..") {
    if (auto dir = installed_version_dir(base, *spec)) return std::optional<RuntimeLocation>(RuntimeLocation{*dir, RuntimeChoice::installed, *spec});
    auto adopted = locate_adopted(*spec, home);
    if (!adopted) return std::unexpected(adopted.error());
    if (*adopted) return std::optional<RuntimeLocation>(**adopted);
  }
  std::error_code ec;
  const fs::path folder = path_from_utf8(*spec);
  if (fs::is_directory(folder, ec)) {
    auto located = locate_runtime(folder, home);
    if (!located) return std::unexpected(located.error());
    located->chosen_by = RuntimeChoice::folder;
    return std::optional<RuntimeLocation>(*located);
  }
  const auto versions = installed_versions(base);
  return fail(
      ErrorKind::not_found, fmt::format("'{}' is neither an installed or adopted ZLUDA nor a folder", *spec),
      versions.empty()
          ? std::string(
                "Install one with 'zcuda install' or adopt one with 'zcuda install --adopt DIR', give a ZLUDA folder, or say 'native' for no ZLUDA.")
          : fmt::format("Installed: {} ('zcuda install --list' names adopted ones too). Or give a ZLUDA folder, or 'native' for no ZLUDA.",
                        fmt::join(versions, ", ")));
}

Result<RuntimeLocation> locate_runtime(const std::optional<fs::path>& flag, const home::Home& home) {
  std::error_code ec;
  if (flag) {
    if (!fs::is_directory(*flag, ec)) {
      return fail(ErrorKind::not_found, fmt::format("The runtime folder {} does not exist", *flag),
                  "Pass --runtime-dir the folder that holds ZLUDA's libraries (nvcuda.dll or libcuda.so.1).");
    }
    return RuntimeLocation{fs::absolute(*flag), RuntimeChoice::runtime_dir_flag, std::nullopt};
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
  const fs::path dir = base / path_from_utf8(version);
  if (auto found = installed_version_dir(base, version)) return RuntimeLocation{*found, RuntimeChoice::installed, version};
  return fail(ErrorKind::not_found, fmt::format("The installed ZLUDA {} is missing from {}", version, dir),
              "Run 'zcuda install' again to repair it, or pass --runtime-dir DIR.");
}

}  // namespace zcuda::launch
