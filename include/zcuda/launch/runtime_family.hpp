#pragma once
// Which ZLUDA family a runtime is (family::identify_runtime), with an installed or adopted
// runtime's digests and release taken from its install receipt instead of its bytes: a launch,
// detect, verify, report and explain name the family without reading a 68 MB nvcuda.dll each time.
#include <filesystem>
#include <optional>
#include <string>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/home/home.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::launch {

// What the install receipt of an installed version (installs/zluda/<version>.receipt.json, beside
// its folder) or of an adopted folder recorded: its files, keyed relative to runtime.dir, and the
// upstream release it names. Empty for a folder that is not an installed or adopted runtime, or
// whose receipt is missing, damaged or another version's or folder's.
family::Recorded recorded_install(const RuntimeLocation& runtime);

// The runtime's family; a folder whose files cannot be read is `unknown`, with the reason (an
// unknown family never blocks a launch by itself).
family::Identity runtime_family(const RuntimeLocation& runtime, platform::Os os);

// The runtime `zcuda run` uses by default (installs/zluda/current), with its family.
struct InstalledRuntime {
  std::string version;
  std::filesystem::path dir;
  family::Identity family;
};
// nullopt when nothing is installed; an error when `current` names a version that is broken.
Result<std::optional<InstalledRuntime>> installed_runtime(const home::Home& home, platform::Os os);

}  // namespace zcuda::launch
