#include <zcuda/base/enum_words.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/verify/verify.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/install/runtime_files.hpp>

#include <system_error>

#include <zcuda/platform/files.hpp>

namespace zcuda::verify {
namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// The installed ZLUDA: installs/zluda/current holds the version, installs/zluda/<version>/ the
// files (where install::runtime_files_dir finds them). nullopt when
// nothing is installed; an error when the pointer is there but broken.
Result<std::optional<Runtime>> installed_zluda(const home::Home& home) {
  const auto base = home.installs() / "zluda";
  const auto pointer = base / "current";
  std::error_code ec;
  if (!std::filesystem::exists(pointer, ec)) return std::optional<Runtime>{};
  auto text = platform::read_file(pointer, 4096);
  if (!text) return std::unexpected(text.error());
  const auto version = trim(*text);
  if (version.empty() || version.find_first_of("/\\") != std::string::npos || version == "." || version == "..") {
    return fail(ErrorKind::invalid_input, "The installed-ZLUDA pointer " + path_to_utf8(pointer) + " does not hold a version",
                "Reinstall with 'zcuda install', or choose a runtime with --runtime-dir DIR or --runtime native.");
  }
  auto dir = base / path_from_utf8(version);
  if (!std::filesystem::is_directory(dir, ec)) {
    return fail(ErrorKind::not_found, "ZLUDA " + version + " is marked current but " + path_to_utf8(dir) + " is missing",
                "Reinstall with 'zcuda install', or choose a runtime with --runtime-dir DIR or --runtime native.");
  }
  if (auto files = install::runtime_files_dir(dir)) dir = *files;
  return std::optional<Runtime>{Runtime{RuntimeKind::zluda, dir, version, "installed ZLUDA"}};
}

}  // namespace

std::string_view to_string(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::zluda:
      return "zluda";
    case RuntimeKind::folder:
      return "dir";
    case RuntimeKind::native:
      return "native";
  }
  return "native";
}

std::optional<RuntimeKind> runtime_kind_from(std::string_view text) {
  return enum_from_word(text, {RuntimeKind::zluda, RuntimeKind::folder, RuntimeKind::native});
}

Result<Runtime> resolve_runtime(const std::optional<std::filesystem::path>& runtime_dir, std::string_view runtime, const home::Home& home) {
  if (runtime_dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*runtime_dir, ec)) {
      return fail(ErrorKind::not_found, "The runtime folder " + path_to_utf8(*runtime_dir) + " does not exist",
                  "Pass a folder that holds the CUDA libraries to test, such as an extracted ZLUDA release.");
    }
    return Runtime{RuntimeKind::folder, std::filesystem::absolute(*runtime_dir), "", "--runtime-dir"};
  }
  if (runtime == "native") return Runtime{RuntimeKind::native, std::nullopt, "", "--runtime native"};
  if (runtime != "auto" && runtime != "zluda") {
    // An installed version or an adopted runtime by name (launch::locate_runtime_spec), never a path.
    const std::string name(runtime);
    if (name.find_first_of("/\\") != std::string::npos) {
      return fail(ErrorKind::usage, "--runtime takes auto, native, zluda or a runtime's name, not a path", "Test a folder with --runtime-dir DIR.");
    }
    auto located = launch::locate_runtime_spec(name, home);
    if (!located) return std::unexpected(located.error());
    if (!*located) return Runtime{RuntimeKind::native, std::nullopt, "", "--runtime native"};
    return Runtime{RuntimeKind::zluda, (*located)->dir, name, "--runtime " + name};
  }
  auto installed = installed_zluda(home);
  if (!installed) return std::unexpected(installed.error());
  if (*installed) return **installed;
  if (runtime == "zluda") {
    return fail(ErrorKind::not_found, "No ZLUDA is installed", "Install one with 'zcuda install', or test a folder with --runtime-dir DIR.");
  }
  return Runtime{RuntimeKind::native, std::nullopt, "", "no ZLUDA installed"};
}

}  // namespace zcuda::verify
