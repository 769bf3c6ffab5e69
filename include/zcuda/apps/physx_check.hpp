#pragma once
// The PhysX check: NVIDIA's PhysX System Software, which ZLUDA's 32-bit PhysX needs, is
// installed at the version upstream asks for or newer (docs/apps.md).
#include <optional>
#include <string_view>
#include <vector>

#include <zcuda/apps/check.hpp>
#include <zcuda/platform/windows_system.hpp>

namespace zcuda::apps {

// Upstream's docs/src/physx32.md: "Install the latest NVIDIA PhysX System Software", linking
// 9.19.0218; games' own older copies are "not recommended for use with ZLUDA".
inline constexpr std::string_view kPhysxMinimum = "9.19.0218";

// Whether dotted version `version` is at least `minimum`, comparing numbers part by part
// ("9.19.0218" < "9.23.1019"); nullopt when `version` is not dotted numbers.
std::optional<bool> version_at_least(std::string_view version, std::string_view minimum);

// Judges the check from Windows' installed programs: the "NVIDIA PhysX System Software" entry
// and its DisplayVersion. Fills status (pass, or fail with what to install), reason and facts.
void judge_physx(const std::vector<platform::windows::InstalledProgram>& programs, CheckRecord& record);

// Reads the installed programs and judges them; `unavailable` off Windows, where PhysX games
// do not run.
void run_physx_check(CheckRecord& record);

}  // namespace zcuda::apps
