#pragma once
// What detection tells a run: the GPU to use when an integrated one is enumerated first, its gfx
// (for per-gfx kernel folders) and the HIP SDK / ROCm install.
#include <filesystem>
#include <optional>
#include <string>

#include <zcuda/detect/profile.hpp>
#include <zcuda/launch/launch.hpp>

namespace zcuda::launch {

struct DetectedSettings {
  std::optional<std::string> device;  // HIP_VISIBLE_DEVICES value selecting the discrete GPU
  std::optional<std::string> gfx;     // the gfx of the GPU programs will use
  std::optional<std::filesystem::path> hip_root;
};

DetectedSettings settings_from_profile(const detect::Profile& profile);

// Detection as stage and run need it: file probes only (no HIP runtime loaded, which would cost
// every launch hundreds of milliseconds), and without `names` only what a launch uses
// (detect::Options::launch_only). Never fails; an empty profile when it cannot run.
detect::Profile detect_for_launch(bool names = false);

// Fills what the user did not set (--device, --gfx, --hip-path) from detection.
void apply_detected(Options& options, const DetectedSettings& detected);

}  // namespace zcuda::launch
