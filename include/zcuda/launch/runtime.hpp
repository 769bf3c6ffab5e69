#pragma once
// Where the ZLUDA runtime is: --runtime-dir, else what `zcuda install` put under home.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>

namespace zcuda::launch {

// What chose the runtime: --runtime-dir, the installed one (`current`), or a folder bench named.
enum class RuntimeChoice { runtime_dir_flag, installed, folder };
// "--runtime-dir", "installed", "folder": the words records and --json have always used.
std::string_view to_string(RuntimeChoice choice);

struct RuntimeLocation {
  std::filesystem::path dir;
  RuntimeChoice chosen_by = RuntimeChoice::installed;
  std::optional<std::string> version;  // the installed version, when known
  // The receipt that describes `dir` where it does not sit beside it (an adopted folder's).
  std::optional<std::filesystem::path> receipt = std::nullopt;
};

// The installed runtime is <home.root>/installs/zluda/<version>/, where `current` (a small
// text file next to those folders) names the version in use.
Result<RuntimeLocation> locate_runtime(const std::optional<std::filesystem::path>& flag, const home::Home& home);

// The runtime adopted as `name` (install --adopt): nullopt when none is; not_found when its folder
// is gone. Files changed since the adoption are logged as a warning, not refused.
Result<std::optional<RuntimeLocation>> locate_adopted(const std::string& name, const home::Home& home);

// A runtime named on bench's command line: "native" (no ZLUDA: nullopt), an installed version
// ("v6-preview.69", looked up under home first), an adopted one by its name, or a folder. No spec: what `zcuda run` would use.
Result<std::optional<RuntimeLocation>> locate_runtime_spec(const std::optional<std::string>& spec, const home::Home& home);

}  // namespace zcuda::launch
