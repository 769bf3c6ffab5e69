// Windows: DXGI lists the adapters; the display class registry key adds the driver and the
// Adrenalin version, and stands in for DXGI where it cannot be used (no display session).
#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include <zcuda/platform/windows_system.hpp>

#include "probes.hpp"

namespace zcuda::detect {

namespace {

// The driver's own HIP runtime marks integrated parts poorly; this name and a tiny dedicated
// memory are what the APUs show (ollama uses the same two signs).
void mark_integrated(Gpu& gpu) {
  const bool small_memory = gpu.vram_bytes && *gpu.vram_bytes < (1ull << 30);
  if (gpu.vendor_id == kVendorAmd && (gpu.name == "AMD Radeon(TM) Graphics" || small_memory)) {
    gpu.integrated = true;
    gpu.integrated_reason = "an APU adapter name or less than 1 GiB of dedicated memory";
  }
}

// AMD GPUs are numbered in the order they are listed, as the HIP runtime numbers them.
void number_for_hip(Profile& profile, Gpu& gpu) {
  if (gpu.vendor_id != kVendorAmd) return;
  gpu.hip_index = static_cast<int>(std::count_if(profile.gpus.begin(), profile.gpus.end(), [](const Gpu& g) { return g.vendor_id == kVendorAmd; }));
}

// "pci\ven_1002&dev_7590&subsys_..." -> vendor and device ids.
bool parse_device_id(const std::string& text, std::uint32_t& vendor, std::uint32_t& device) {
  static const std::regex ids("ven_([0-9a-f]{4})&dev_([0-9a-f]{4})", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, ids)) return false;
  vendor = static_cast<std::uint32_t>(std::stoul(m[1].str(), nullptr, 16));
  device = static_cast<std::uint32_t>(std::stoul(m[2].str(), nullptr, 16));
  return true;
}

}  // namespace

void probe_windows_gpus(Profile& profile) {
  auto adapters = platform::windows::dxgi_adapters();
  if (!adapters) {
    profile.probe_notes.push_back("dxgi: " + adapters.error().message);
  } else {
    for (const auto& a : *adapters) {
      if (a.software) continue;  // the Microsoft Basic Render Driver
      Gpu gpu;
      gpu.name = a.description;
      gpu.name_source = Source::dxgi;
      gpu.vendor_id = a.vendor_id;
      gpu.device_id = a.device_id;
      gpu.revision = a.revision;
      gpu.vram_bytes = a.dedicated_video_memory;
      gpu.luid = a.luid;
      gpu.seen_by.push_back("dxgi");
      mark_integrated(gpu);
      number_for_hip(profile, gpu);
      profile.gpus.push_back(std::move(gpu));
    }
  }
  auto keys = platform::windows::display_driver_keys();
  if (!keys) {
    profile.probe_notes.push_back("registry: " + keys.error().message);
    return;
  }
  const bool dxgi_listed = !profile.gpus.empty();
  for (const auto& key : *keys) {
    auto gpu = std::find_if(profile.gpus.begin(), profile.gpus.end(), [&](const Gpu& g) { return g.name == key.driver_desc; });
    if (gpu != profile.gpus.end()) {
      gpu->seen_by.push_back("registry");
    } else if (!dxgi_listed) {
      // DXGI gave nothing (a service session, a remote desktop without a display adapter): the
      // driver's own key still names the device.
      Gpu found;
      if (parse_device_id(key.matching_device_id, found.vendor_id, found.device_id)) {
        found.name = key.driver_desc;
        found.name_source = Source::registry;
        found.vram_bytes = key.memory_size;
        found.seen_by.push_back("registry");
        mark_integrated(found);
        number_for_hip(profile, found);
        profile.gpus.push_back(std::move(found));
        gpu = profile.gpus.end() - 1;
      }
    }
    if (!key.radeon_software_version.empty() || (gpu != profile.gpus.end() && gpu->vendor_id == kVendorAmd)) {
      profile.driver.module_loaded = true;
      profile.driver.driver_desc = key.driver_desc;
      profile.driver.version = key.driver_version;
      if (!key.radeon_software_version.empty()) profile.driver.adrenalin_version = key.radeon_software_version;
    }
  }
}

}  // namespace zcuda::detect
