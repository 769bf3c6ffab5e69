// Names for the GPUs found: libdrm's amdgpu.ids when it knows the device and revision, else
// zcuda's own table (the system file is often older than the card), else pci.ids.
#include <fmt/format.h>

#include "parsers.hpp"
#include "probes.hpp"
#include "tables.hpp"

namespace zcuda::detect {

namespace {

// pci.ids: "vendor  Name" lines, then "\tdevice  Name" lines under it.
std::optional<std::string> pci_ids_name(const std::string& text, std::uint32_t vendor, std::uint32_t device) {
  const std::string vendor_prefix = fmt::format("{:04x}  ", vendor);
  const std::string device_prefix = fmt::format("\t{:04x}  ", device);
  std::size_t pos = 0;
  bool in_vendor = false;
  std::string vendor_name;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      if (in_vendor) break;
      if (line.starts_with(vendor_prefix)) {
        in_vendor = true;
        vendor_name = std::string(line.substr(vendor_prefix.size()));
      }
      continue;
    }
    if (in_vendor && line.starts_with(device_prefix)) {
      return fmt::format("{} {}", vendor_name, line.substr(device_prefix.size()));
    }
  }
  return std::nullopt;
}

const char* vendor_label(std::uint32_t vendor) {
  switch (vendor) {
    case kVendorAmd:
      return "AMD";
    case kVendorNvidia:
      return "NVIDIA";
    case kVendorIntel:
      return "Intel";
    default:
      return "Unknown vendor";
  }
}

}  // namespace

void name_gpus(const SystemView& view, Profile& profile, bool with_names) {
  std::optional<AmdgpuIds> ids;
  // Without names only the gfx targets of zcuda's table are filled in (no file is read).
  for (const char* path : {"/usr/share/libdrm/amdgpu.ids", "/opt/amdgpu/share/libdrm/amdgpu.ids"}) {
    if (!with_names) break;
    auto text = view.read(path);
    if (!text) continue;
    auto parsed = parse_amdgpu_ids(*text);
    if (parsed) {
      ids = std::move(*parsed);
      break;
    }
    profile.probe_notes.push_back(fmt::format("{} is malformed ({}); using zcuda's own table", path, parsed.error().message));
  }
  std::optional<std::string> pci_ids;
  for (const char* path : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"}) {
    if (!with_names) break;
    if (auto text = view.read(path, 8u << 20)) {
      pci_ids = std::move(*text);
      break;
    }
  }

  for (auto& gpu : profile.gpus) {
    if (gpu.vendor_id == kVendorAmd) {
      // The gfx target also for a GPU that came named (Windows: DXGI or the driver's key).
      auto known = lookup_amd_device(gpu.device_id, gpu.revision);
      if (known && gpu.gfx.empty() && !known->gfx.empty()) {
        gpu.gfx = known->gfx;
        gpu.gfx_source = Source::zcuda_table;
      }
      if (!with_names || !gpu.name.empty()) continue;
      if (ids && gpu.revision) {
        if (const auto* entry = ids->find(gpu.device_id, *gpu.revision)) {
          gpu.name = entry->name;
          gpu.name_source = Source::amdgpu_ids;
          continue;
        }
      }
      if (known && !known->name.empty()) {
        gpu.name = known->name;
        gpu.name_source = Source::zcuda_table;
        continue;
      }
      if (known && !known->chip.empty()) {
        gpu.name = fmt::format("AMD Radeon ({})", known->chip);
        gpu.name_source = Source::zcuda_table;
        continue;
      }
    }
    if (!with_names || !gpu.name.empty()) continue;
    if (pci_ids) {
      if (auto name = pci_ids_name(*pci_ids, gpu.vendor_id, gpu.device_id)) {
        gpu.name = *name;
        gpu.name_source = Source::pci_ids;
        continue;
      }
    }
    gpu.name = fmt::format("{} GPU {:04x}:{:04x}", vendor_label(gpu.vendor_id), gpu.vendor_id, gpu.device_id);
    gpu.name_source = Source::pci_id;
  }
}

}  // namespace zcuda::detect
