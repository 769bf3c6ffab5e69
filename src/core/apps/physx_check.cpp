#include <zcuda/apps/physx_check.hpp>

#include <optional>
#include <string>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/whole_number.hpp>

namespace zcuda::apps {

namespace {

// The installer's entry in "Apps & features" is named "NVIDIA PhysX System Software <version>"
// with the version again in DisplayVersion (public inventories of installed programs show
// "NVIDIA PhysX System Software 9.19.0218", "9.23.1019"). Games' legacy PhysX runtimes have
// other names ("NVIDIA PhysX Legacy") and are not what ZLUDA needs.
constexpr std::string_view kEntryName = "NVIDIA PhysX System Software";

constexpr std::string_view kWhere = "https://www.nvidia.com/en-us/drivers/physx/physx-9-19-0218-driver/";

std::optional<std::vector<unsigned long>> numbers_of(std::string_view version) {
  std::vector<unsigned long> parts;
  while (true) {
    const auto dot = version.find('.');
    const std::string_view part = version.substr(0, dot);
    const auto value = whole_number<unsigned long>(part);
    if (!value) return std::nullopt;
    parts.push_back(*value);
    if (dot == std::string_view::npos) return parts;
    version.remove_prefix(dot + 1);
  }
}

// The version an entry states: DisplayVersion, else the one its name ends with.
std::string stated_version(const platform::windows::InstalledProgram& program) {
  if (!program.display_version.empty()) return program.display_version;
  const auto space = program.display_name.find_last_of(' ');
  if (space == std::string::npos || !numbers_of(std::string_view(program.display_name).substr(space + 1))) return {};
  return program.display_name.substr(space + 1);
}

}  // namespace

std::optional<bool> version_at_least(std::string_view version, std::string_view minimum) {
  auto have = numbers_of(version);
  auto want = numbers_of(minimum);
  if (!have || !want) return std::nullopt;
  return !std::lexicographical_compare(have->begin(), have->end(), want->begin(), want->end());
}

void judge_physx(const std::vector<platform::windows::InstalledProgram>& programs, CheckRecord& record) {
  nlohmann::json found = nlohmann::json::array();
  std::optional<std::string> best;  // the newest readable version installed
  for (const auto& program : programs) {
    if (!ascii_lower(program.display_name).starts_with(ascii_lower(kEntryName))) continue;
    const std::string version = stated_version(program);
    found.push_back({{"name", program.display_name}, {"version", version}, {"publisher", program.publisher}});
    if (numbers_of(version) && (!best || !*version_at_least(*best, version))) best = version;
  }
  record.facts["physx_system_software"] = found;
  record.facts["minimum"] = std::string(kPhysxMinimum);
  if (!best) {
    record.status = CheckStatus::fail;
    record.reason =
        found.empty()
            ? fmt::format("NVIDIA PhysX System Software is not installed; ZLUDA's 32-bit PhysX needs {} or newer. Install it from {}", kPhysxMinimum,
                          kWhere)
            : fmt::format("NVIDIA PhysX System Software is installed, but its version cannot be read (\"{}\"); reinstall {} or newer from {}",
                          found.front().value("version", ""), kPhysxMinimum, kWhere);
    return;
  }
  record.facts["version"] = *best;
  if (!*version_at_least(*best, kPhysxMinimum)) {
    record.status = CheckStatus::fail;
    record.reason = fmt::format("NVIDIA PhysX System Software {} is older than {}, which ZLUDA's 32-bit PhysX needs; install the latest from {}",
                                *best, kPhysxMinimum, kWhere);
    return;
  }
  record.status = CheckStatus::pass;
  record.reason = fmt::format("NVIDIA PhysX System Software {} is installed ({} or newer is needed)", *best, kPhysxMinimum);
}

void run_physx_check(CheckRecord& record) {
  record.facts["minimum"] = std::string(kPhysxMinimum);
  auto programs = platform::windows::installed_programs();
  if (!programs) {
    record.status = CheckStatus::unavailable;
    record.reason = fmt::format("PhysX games run through ZLUDA on Windows only ({})", programs.error().message);
    return;
  }
  judge_physx(*programs, record);
}

}  // namespace zcuda::apps
