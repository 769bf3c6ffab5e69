#pragma once
#include <filesystem>
#include <optional>

#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::detect {

struct Options {
  // Read every file-based probe (sysfs, /proc, /dev, /opt, /usr/share, /etc) under this folder
  // instead of "/", and skip probes that load libraries. Users can send a captured tree.
  std::optional<std::filesystem::path> root;
  bool probe_hip_runtime = true;          // --no-hip turns it off
  platform::Environment environment;      // the variables probes consult (HIP_PATH, ROCM_PATH, ...)
};

// Never fails for a machine that lacks things: what is missing becomes findings. Errors are
// reserved for an unusable --root.
Result<Profile> detect_machine(const Options& options);

}  // namespace zcuda::detect
