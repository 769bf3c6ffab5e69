#include <zcuda/detect/detect.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

#include "probes.hpp"

namespace zcuda::detect {

Result<Profile> detect_machine(const Options& options) {
  if (options.root && !std::filesystem::is_directory(*options.root)) {
    return fail(ErrorKind::not_found, fmt::format("--root {} is not a folder", *options.root),
                "Pass the folder that holds the captured sys/, dev/, opt/ ... tree.");
  }
  SystemView view(options.root);
  Profile profile;
  profile.os = options.root ? platform::Os::linux : platform::current_os();
  profile.root = options.root ? path_to_utf8(*options.root) : "/";

  if (targets_windows(profile)) {
    probe_windows_gpus(profile);
  } else {
    probe_linux_gpus(view, profile);
    probe_linux_driver(view, profile);
  }
  name_gpus(view, profile, !options.launch_only);
  RegisteredEnvironment registered;
  if (targets_windows(profile)) {
    if (auto variables = platform::windows::registered_environment()) registered = std::move(*variables);
  }
  probe_hip_installs(view, options.environment, registered, profile, options.kernel_support);
  // Loading a library runs its code: never for a captured tree, and not when asked to skip.
  if (!options.root && options.probe_hip_runtime) {
    probe_hip_runtime(options.environment, profile);
    // New gfx values from HIP may need kernel checks too.
    if (std::any_of(profile.gpus.begin(), profile.gpus.end(), [](const Gpu& g) { return g.gfx_source == Source::hip; })) {
      profile.hip_installs.clear();
      probe_hip_installs(view, options.environment, registered, profile, options.kernel_support);
    }
  }
  if (!options.launch_only) probe_cuda(view, options.environment, profile);
  assign_status(profile);
  if (!options.launch_only) derive_findings(options.environment, profile);
  if (options.measure_caches && !options.root) {
    std::vector<caches::Usage> usages;
    for (const auto& folder : caches::locate(caches::live_inputs())) usages.push_back(caches::measure(folder));
    add_cache_findings(profile, usages);
  }
  // AMD GPUs in the order programs will see them, then the others.
  std::stable_sort(profile.gpus.begin(), profile.gpus.end(), [](const Gpu& a, const Gpu& b) {
    auto rank = [](const Gpu& g) { return g.hip_index ? *g.hip_index : (g.vendor_id == kVendorAmd ? 1000 : 2000); };
    return rank(a) < rank(b);
  });
  std::stable_sort(profile.findings.begin(), profile.findings.end(), [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  for (const auto& note : profile.probe_notes) spdlog::info("detect: {}", note);
  return profile;
}

}  // namespace zcuda::detect
