#pragma once
// Parsers of the text files detection reads. Malformed input yields an error, never a crash.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::detect {

// KFD topology `properties`: one "name value" pair per line, values unsigned decimal.
Result<std::map<std::string, std::uint64_t>> parse_kfd_properties(std::string_view text);

// gfx_target_version (decimal MMmmss, e.g. 120001) -> "gfx1201". 0 means "not a GPU".
Result<std::string> gfx_from_target_version(std::uint64_t version);

// "0x7590" or "7590" (hex, as DRM and PCI sysfs print ids) -> 0x7590.
Result<std::uint32_t> parse_hex_id(std::string_view text);

// libdrm's amdgpu.ids: comment lines (#), a version line, then "device,\trevision,\tname".
struct AmdgpuIdEntry {
  std::uint32_t device_id = 0;
  std::uint32_t revision = 0;
  std::string name;
};
struct AmdgpuIds {
  std::string version;
  std::vector<AmdgpuIdEntry> entries;
  const AmdgpuIdEntry* find(std::uint32_t device_id, std::uint32_t revision) const;
};
Result<AmdgpuIds> parse_amdgpu_ids(std::string_view text);

// A PCI function's address as sysfs names it, "0000:03:00.0" (domain:bus:device.function), in
// the one spelling entries are matched by: lower case, with the domain ("03:00.0" -> "0000:03:00.0").
// Nothing for text that is not one (a platform device such as "simple-framebuffer.0").
std::optional<std::string> parse_pci_address(std::string_view text);

// "KEY=VALUE" lines (uevent files, os-release).
std::map<std::string, std::string> parse_key_values(std::string_view text);

// Compares dotted versions numerically: "6.10" > "6.4". Non-numeric parts compare as text.
int compare_versions(std::string_view a, std::string_view b);

}  // namespace zcuda::detect
