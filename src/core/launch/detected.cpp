#include <zcuda/launch/detected.hpp>

#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

#include <zcuda/detect/detect.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::launch {

DetectedSettings settings_from_profile(const detect::Profile& profile) {
  DetectedSettings settings;
  std::vector<const detect::Gpu*> amd;
  for (const auto& g : profile.gpus) {
    if (g.vendor_id == detect::kVendorAmd && g.hip_index) amd.push_back(&g);
  }
  std::sort(amd.begin(), amd.end(), [](auto* a, auto* b) { return *a->hip_index < *b->hip_index; });
  if (!amd.empty()) {
    const detect::Gpu* chosen = amd.front();
    // An integrated GPU enumerated first would be ZLUDA's pick: select the first discrete one.
    if (chosen->integrated) {
      auto discrete = std::find_if(amd.begin(), amd.end(), [](auto* g) { return !g->integrated; });
      if (discrete != amd.end()) {
        chosen = *discrete;
        settings.device = std::to_string(*chosen->hip_index);
      }
    }
    if (!chosen->gfx.empty()) settings.gfx = chosen->gfx;
  }
  if (const auto* hip = profile.selected_hip()) settings.hip_root = path_from_utf8(hip->root);
  return settings;
}

detect::Profile detect_for_launch(bool names) {
  detect::Options options;
  options.probe_hip_runtime = false;
  options.launch_only = !names;
  options.kernel_support = false;
  options.environment = platform::current_environment();
  auto profile = detect::detect_machine(options);
  if (!profile) {
    spdlog::info("detection for the launch failed: {}", profile.error().message);
    return {};
  }
  return *profile;
}

void apply_detected(Options& options, const DetectedSettings& detected) {
  if (!options.device && detected.device) options.device = detected.device;
  if (!options.gfx && detected.gfx) options.gfx = detected.gfx;
  if (!options.hip_path && detected.hip_root) options.hip_path = detected.hip_root;
}

}  // namespace zcuda::launch
