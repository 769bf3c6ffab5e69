// Windows: DXGI lists the adapters; the display class registry key adds the driver and the
// Adrenalin version.
#include <algorithm>

#include <fmt/format.h>

#include <zcuda/platform/windows_system.hpp>

#include "probes.hpp"

namespace zcuda::detect {

void probe_windows_gpus(Profile& profile) {
  auto adapters = platform::windows::dxgi_adapters();
  if (!adapters) {
    profile.probe_notes.push_back("dxgi: " + adapters.error().message);
  } else {
    for (const auto& a : *adapters) {
      if (a.software) continue;  // the Microsoft Basic Render Driver
      Gpu gpu;
      gpu.name = a.description;
      gpu.name_source = "dxgi";
      gpu.vendor_id = a.vendor_id;
      gpu.device_id = a.device_id;
      gpu.revision = a.revision;
      gpu.vram_bytes = a.dedicated_video_memory;
      gpu.luid = a.luid;
      gpu.seen_by.push_back("dxgi");
      // The driver's own HIP runtime marks integrated parts poorly; this name and a tiny
      // dedicated memory are what the APUs show (ollama uses the same two signs).
      if (a.vendor_id == kVendorAmd && (a.description == "AMD Radeon(TM) Graphics" || a.dedicated_video_memory < (1ull << 30))) {
        gpu.integrated = true;
        gpu.integrated_reason = "an APU adapter name or less than 1 GiB of dedicated memory";
      }
      gpu.hip_index = static_cast<int>(std::count_if(profile.gpus.begin(), profile.gpus.end(), [](const Gpu& g) { return g.vendor_id == kVendorAmd; }));
      if (a.vendor_id != kVendorAmd) gpu.hip_index.reset();
      profile.gpus.push_back(std::move(gpu));
    }
  }
  auto keys = platform::windows::display_driver_keys();
  if (!keys) {
    profile.probe_notes.push_back("registry: " + keys.error().message);
    return;
  }
  for (const auto& key : *keys) {
    auto gpu = std::find_if(profile.gpus.begin(), profile.gpus.end(), [&](const Gpu& g) { return g.name == key.driver_desc; });
    if (gpu != profile.gpus.end()) gpu->seen_by.push_back("registry");
    if (!key.radeon_software_version.empty() || (gpu != profile.gpus.end() && gpu->vendor_id == kVendorAmd)) {
      profile.driver.module_loaded = true;
      profile.driver.driver_desc = key.driver_desc;
      profile.driver.version = key.driver_version;
      if (!key.radeon_software_version.empty()) profile.driver.adrenalin_version = key.radeon_software_version;
    }
  }
}

}  // namespace zcuda::detect
