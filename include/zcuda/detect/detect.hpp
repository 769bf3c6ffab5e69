#pragma once
#include <filesystem>
#include <optional>

#include <zcuda/base/error.hpp>
#include <zcuda/caches/caches.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::detect {

struct Options {
  // Read every file-based probe (sysfs, /proc, /dev, /opt, /usr/share, /etc) under this folder
  // instead of "/", and skip probes that load libraries. Users can send a captured tree.
  std::optional<std::filesystem::path> root;
  bool probe_hip_runtime = true;  // --no-hip turns it off
  // Only what a launch uses: the GPUs with their gfx and HIP order, and the HIP installs. No
  // product names (amdgpu.ids, pci.ids), no CUDA probe, no findings: a launch pays for none.
  bool launch_only = false;
  // The rocBLAS/hipBLASLt kernel files per gfx (thousands of names in a HIP SDK). A launch skips
  // them; add_kernel_support reads them later for whatever needs them.
  bool kernel_support = true;
  platform::Environment environment;  // the variables probes consult (HIP_PATH, ROCM_PATH, ...)
  bool measure_caches = false;        // walk the kernel caches for large-cache (zcuda detect; live only)
};

// Never fails for a machine that lacks things: what is missing becomes findings. Errors are
// reserved for an unusable --root.
Result<Profile> detect_machine(const Options& options);

// Reads the kernel files of every HIP install detected without them (Options::kernel_support).
void add_kernel_support(Profile& profile);

// A large-cache finding for each cache holding more than `threshold` bytes.
void add_cache_findings(Profile& profile, const std::vector<caches::Usage>& usages, std::uint64_t threshold = caches::kLargeCacheBytes);

}  // namespace zcuda::detect
