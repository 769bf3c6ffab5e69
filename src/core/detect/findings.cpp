// Turns the probes' observations into a status per GPU and findings that each say what is
// wrong and what to do. Codes are stable: scripts and reports key on them.
#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/platform/os.hpp>

#include "parsers.hpp"
#include "probes.hpp"
#include "tables.hpp"

namespace zcuda::detect {

namespace {

void add(Profile& p, Severity s, std::string code, std::string message, std::string hint) {
  p.findings.push_back({s, std::move(code), std::move(message), std::move(hint)});
}

const HipLibrary* library(const HipInstall& install, std::string_view component) {
  for (const auto& l : install.libraries) {
    if (l.component == component) return &l;
  }
  return nullptr;
}

bool found(const HipInstall& install, std::string_view component) {
  const auto* l = library(install, component);
  return l != nullptr && l->found;
}

// Upstream ZLUDA's docs/src/hip_sdk.md (at 8a7931be): the latest official HIP SDK, which has no
// machine-learning support, or for PyTorch and TensorFlow a nightly ROCm SDK build (TheRock).
std::string hip_sdk_hint(const Profile& p) {
  return targets_windows(p) ? "Install the latest AMD HIP SDK for Windows (the installer sets HIP_PATH), then run zcuda detect again. For "
                              "machine learning (PyTorch, TensorFlow) the official SDK is not enough: extract a nightly ROCm SDK build "
                              "(TheRock's therock-dist-windows-gfx<arch> tarball) and set HIP_PATH to its folder (upstream ZLUDA's "
                              "docs/src/hip_sdk.md)."
                            : "Install ROCm 6.4 (AMD's amdgpu-install, or your distribution's ROCm packages), or set ROCM_PATH to its folder.";
}

void findings_for_driver(Profile& p, const std::vector<const Gpu*>& amd) {
  if (targets_windows(p)) {
    if (p.hip_runtime.probed && !p.hip_runtime.loaded) {
      add(p, Severity::error, "hip-runtime-missing", "The AMD driver's HIP runtime (amdhip64_7.dll or amdhip64_6.dll in System32) was not found",
          "Install or update the AMD Software: Adrenalin Edition driver; it carries the HIP runtime ZLUDA needs.");
    }
    return;
  }
  if (!p.driver.module_loaded || (!p.driver.initstate.empty() && p.driver.initstate != "live")) {
    add(p, Severity::error, "amdgpu-not-loaded",
        p.driver.module_loaded ? fmt::format("The amdgpu kernel driver is loaded but not live (initstate: {})", p.driver.initstate)
                               : "The amdgpu kernel driver is not loaded",
        fmt::format(
            "Load it with 'sudo modprobe amdgpu' and check 'sudo dmesg | grep -i amdgpu' for why it failed. {} AMD GPU(s) are on the PCI bus.",
            amd.size()));
    return;
  }
  if (!p.driver.kfd_present) {
    add(p, Severity::error, "kfd-missing", "/dev/kfd does not exist, so ROCm cannot reach the GPU",
        "In a container, pass --device /dev/kfd --device /dev/dri. Otherwise the amdgpu driver was built without KFD (HSA) support.");
  } else if (p.driver.kfd_accessible && !*p.driver.kfd_accessible) {
    std::string group = p.driver.kfd_group.empty() ? "render" : p.driver.kfd_group;
    add(p, Severity::error, "kfd-not-accessible", fmt::format("/dev/kfd cannot be opened read-write: {}", p.driver.kfd_error),
        p.driver.user_in_kfd_group.value_or(false)
            ? fmt::format("You are in the '{}' group but cannot open it: log out and in again, or check its permissions.", group)
            : fmt::format("Add yourself to the '{}' group: sudo usermod -aG {} $USER, then log out and in again.", group, group));
  }
  if (p.driver.version.empty()) {
    add(p, Severity::info, "amdgpu-version-unknown", "The amdgpu driver does not report a version (the in-kernel driver does not)",
        "Nothing to do unless ROCm asks for AMD's packaged driver (amdgpu-dkms).");
  }
}

void findings_for_gpu_order(Profile& p, const std::vector<const Gpu*>& amd) {
  std::vector<const Gpu*> ordered;
  for (const auto* g : amd) {
    if (g->hip_index) ordered.push_back(g);
  }
  std::sort(ordered.begin(), ordered.end(), [](auto* a, auto* b) { return *a->hip_index < *b->hip_index; });
  if (ordered.size() < 2 || !ordered.front()->integrated) return;
  auto discrete = std::find_if(ordered.begin(), ordered.end(), [](auto* g) { return !g->integrated; });
  if (discrete == ordered.end()) return;
  int index = *(*discrete)->hip_index;
  add(p, Severity::warning, "igpu-enumerated-first",
      fmt::format("The integrated GPU ({}) is enumerated before the discrete {}; ZLUDA would use the integrated one", ordered.front()->name,
                  (*discrete)->name),
      targets_windows(p)
          ? fmt::format("Set HIP_VISIBLE_DEVICES={} (zcuda run does this for you), or disable the integrated GPU in Device Manager.", index)
          : fmt::format("Set HIP_VISIBLE_DEVICES={} or ROCR_VISIBLE_DEVICES={} (zcuda run does this for you).", index, index));
}

void findings_for_hip(Profile& p, const std::vector<const Gpu*>& amd, const platform::Environment& env) {
  const HipInstall* hip = p.selected_hip();
  if (hip == nullptr) {
    add(p, Severity::error, "no-hip-sdk",
        targets_windows(p) ? "No HIP SDK was found (HIP_PATH is not set and nothing is under Program Files\\AMD\\ROCm)"
                           : "No ROCm installation was found",
        hip_sdk_hint(p));
    return;
  }
  std::set<std::string> gfxs;
  for (const auto* g : amd) {
    if (!g->gfx.empty()) gfxs.insert(g->gfx);
  }
  for (const auto& gfx : gfxs) {
    ArchSupport support = arch_support(gfx);
    // An integrated GPU beside a discrete one is deselected by HIP_VISIBLE_DEVICES: its gaps warn.
    bool only_integrated = std::all_of(amd.begin(), amd.end(), [&](auto* g) { return g->gfx != gfx || g->integrated; });
    bool has_discrete = std::any_of(amd.begin(), amd.end(), [](auto* g) { return !g->integrated; });
    Severity gap = only_integrated && has_discrete ? Severity::warning : Severity::error;
    if (!support.min_hip_sdk.empty() && !hip->version.empty() && compare_versions(hip->version, support.min_hip_sdk) < 0) {
      add(p, gap, "hip-sdk-too-old",
          fmt::format("{} {} is older than {} needs ({} or newer)", targets_windows(p) ? "HIP SDK" : "ROCm", hip->version, gfx, support.min_hip_sdk),
          fmt::format("Install HIP SDK {} or newer.", support.min_hip_sdk));
    }
    if (!support.max_hip_sdk.empty() && !hip->version.empty() && compare_versions(hip->version, support.max_hip_sdk + ".999") > 0) {
      add(p, Severity::warning, "hip-sdk-drops-arch",
          fmt::format("HIP SDK {} may no longer support {} (last known: {})", hip->version, gfx, support.max_hip_sdk),
          fmt::format("If rocBLAS fails, install HIP SDK {}.", support.max_hip_sdk));
    }
    auto k = hip->kernels.find(gfx);
    if (found(*hip, "rocblas") && k != hip->kernels.end() && !k->second.rocblas) {
      add(p, gap, "rocblas-kernels-missing",
          fmt::format("rocBLAS in {} has no kernels for {} (it has: {}); rocBLAS aborts on this GPU", hip->root, gfx,
                      hip->rocblas_archs.empty() ? std::string("none") : fmt::format("{}", fmt::join(hip->rocblas_archs, ", "))),
          fmt::format("Install a HIP SDK that supports {} ({} or newer), or add rocBLAS kernel files built for {} to rocblas{}library.", gfx,
                      support.min_hip_sdk.empty() ? "a current one" : support.min_hip_sdk, gfx, targets_windows(p) ? "\\" : "/"));
    }
    if (found(*hip, "hipblaslt") && k != hip->kernels.end() && !k->second.hipblaslt) {
      add(p, Severity::warning, "hipblaslt-kernels-missing", fmt::format("hipBLASLt has no kernels for {}; cuBLASLt calls will fail", gfx),
          "Programs that use cuBLASLt (PyTorch matmuls among them) need hipBLASLt kernels for this GPU: use a HIP SDK that ships them (6.4.2 or "
          "newer for gfx1101 and up).");
    }
  }
  if (!hip->missing_zluda_names.empty()) {
    // Without libamdhip64.so or librocblas.so ZLUDA's libcuda / libcublas do not load at all.
    const bool fatal = std::any_of(hip->missing_zluda_names.begin(), hip->missing_zluda_names.end(),
                                   [](const std::string& n) { return n == "libamdhip64.so" || n == "librocblas.so"; });
    add(p, fatal ? Severity::error : Severity::warning, "zluda-library-names-missing",
        fmt::format("{} lacks {}, the unversioned name{} ZLUDA's libraries load (it may hold only versioned files such as libamdhip64.so.6)",
                    hip->root, fmt::join(hip->missing_zluda_names, ", "), hip->missing_zluda_names.size() == 1 ? "" : "s"),
        "Install ROCm's development packages (they carry the unversioned links, such as libamdhip64.so -> libamdhip64.so.6), or install "
        "ROCm with amdgpu-install.");
  }
  if (!found(*hip, "rocblas")) {
    add(p, Severity::error, "rocblas-missing", fmt::format("rocBLAS is missing from {}; cuBLAS calls will fail", hip->root), hip_sdk_hint(p));
  }
  if (!found(*hip, "rocsparse")) {
    add(p, Severity::warning, "rocsparse-missing", fmt::format("rocSPARSE is missing from {}; cuSPARSE calls will fail", hip->root), hip_sdk_hint(p));
  }
  if (!found(*hip, "hipblaslt")) {
    add(p, Severity::warning, "hipblaslt-missing", fmt::format("hipBLASLt is missing from {}; cuBLASLt calls will fail", hip->root),
        "hipBLASLt is in the Windows HIP SDK from 6.4.2 (gfx1101 and newer); on Linux install the hipblaslt package.");
  }
  if (!found(*hip, "miopen")) {
    add(p, Severity::warning, "no-miopen", "MIOpen is not installed, so programs that use cuDNN will fail",
        targets_windows(p) ? "AMD's HIP SDK for Windows ships no MIOpen; cuDNN-based programs (PyTorch convolutions with cuDNN enabled) need a "
                             "TheRock build with MIOpen, or cuDNN disabled."
                           : "Install the MIOpen package of your ROCm (miopen-hip), or disable cuDNN in the program.");
  }
  // On Windows the runtime comes from the driver, the libraries from the SDK: their majors must agree.
  if (p.hip_runtime.loaded && p.hip_runtime.runtime_version && !hip->version.empty()) {
    int runtime_major = *p.hip_runtime.runtime_version / 10000000;
    int sdk_major = std::atoi(hip->version.c_str());
    if (runtime_major > 0 && sdk_major > runtime_major) {
      add(p, Severity::error, "driver-too-old-for-hip",
          fmt::format("The driver's HIP runtime is version {} but the HIP SDK is {}", runtime_major, hip->version),
          targets_windows(p) ? "Update the AMD Adrenalin driver: HIP SDK 7 libraries need amdhip64_7.dll from a current driver."
                             : "Update the amdgpu driver and ROCm runtime together.");
    }
  }
  if (targets_windows(p) && p.hip_runtime.loaded && p.hip_runtime.library.find("amdhip64_6") != std::string::npos && !hip->version.empty() &&
      compare_versions(hip->version, "7") >= 0) {
    add(p, Severity::error, "driver-too-old-for-hip", "Only amdhip64_6.dll is installed but the HIP SDK is 7 or newer",
        "Update the AMD Adrenalin driver so that it installs amdhip64_7.dll.");
  }
  if (p.hip_installs.size() > 1) {
    add(p, Severity::info, "several-hip-installs",
        fmt::format("{} HIP SDK / ROCm installs were found; zcuda uses {} ({})", p.hip_installs.size(), hip->root, hip->found_via),
        targets_windows(p) ? "Set HIP_PATH to choose another." : "Set ROCM_PATH to choose another.");
  }
  const bool hip_path_set = platform::variable_key(env, "HIP_PATH", platform::Os::windows).has_value();
  if (targets_windows(p) && hip->found_via.ends_with(" environment)") && !hip_path_set) {
    add(p, Severity::warning, "hip-path-not-in-this-terminal",
        fmt::format("The HIP SDK at {} is registered for new programs ({}), but this terminal was opened before and has no HIP_PATH", hip->root,
                    hip->found_via),
        "Open a new terminal: programs started from this one will not find the HIP SDK's libraries. (zcuda run sets HIP_PATH "
        "for the program it starts.)");
  }
}

}  // namespace

void assign_status(Profile& profile) {
  for (auto& gpu : profile.gpus) {
    if (gpu.vendor_id != kVendorAmd) {
      gpu.status = GpuSupport::not_amd;
      continue;
    }
    if (gpu.gfx.empty()) {
      gpu.status = GpuSupport::unsupported;
      gpu.status_source = "gfx target unknown";
      continue;
    }
    ArchSupport support = arch_support(gpu.gfx);
    gpu.status = support.status;
    gpu.status_source = support.source;
    gpu.min_hip_sdk = support.min_hip_sdk;
  }
}

void derive_findings(const platform::Environment& env, Profile& p) {
  std::vector<const Gpu*> amd;
  for (const auto& g : p.gpus) {
    if (g.vendor_id == kVendorAmd) amd.push_back(&g);
  }
  if (p.cuda.nvidia_gpu) {
    add(p, Severity::info, "nvidia-gpu-present", "An NVIDIA GPU is present: CUDA programs can run on it natively, without ZLUDA",
        "Use zcuda only for the AMD GPU; zcuda verify --runtime native checks NVIDIA's own stack.");
  }
  if (amd.empty()) {
    add(p, Severity::error, "no-amd-gpu", "No AMD GPU was found",
        p.cuda.nvidia_gpu ? "ZLUDA is for AMD GPUs; this machine's NVIDIA GPU runs CUDA natively."
                          : "ZLUDA needs an AMD Radeon GPU (RX 5000 series or newer). In a VM or container, pass the GPU through.");
  } else {
    findings_for_driver(p, amd);
    findings_for_gpu_order(p, amd);
    for (const auto* g : amd) {
      if (g->gfx.empty()) {
        add(p, Severity::warning, "unknown-gfx", fmt::format("The gfx target of {} ({:04x}:{:04x}) is unknown", g->name, g->vendor_id, g->device_id),
            "Detection could not read the KFD topology or ask the HIP runtime; install ROCm (Linux) or the Adrenalin driver (Windows).");
      } else if (g->status == GpuSupport::unsupported && pre_rdna(g->gfx)) {
        // An integrated Vega beside a supported discrete GPU is deselected by HIP_VISIBLE_DEVICES.
        const bool beside_discrete = g->integrated && std::any_of(amd.begin(), amd.end(), [](auto* other) { return !other->integrated; });
        add(p, beside_discrete ? Severity::warning : Severity::error, "gpu-unsupported",
            fmt::format("{} ({}) is not supported by ZLUDA: {}", g->name, g->gfx, arch_support(g->gfx).note),
            "ZLUDA's FAQ (https://github.com/vosen/ZLUDA/blob/master/docs/src/faq.md) names AMD Radeon RX 5000 series and newer GPUs, "
            "desktop and integrated; CUDA programs need one of those. See docs/compatibility.md.");
      } else if (g->status == GpuSupport::unsupported) {
        add(p, Severity::warning, "gpu-unsupported", fmt::format("{} ({}) is not in zcuda's support table", g->name, g->gfx),
            "Upstream ZLUDA supports RX 5000 series and newer GPUs, so it may work if the HIP SDK / ROCm has kernels for it: run zcuda verify; "
            "see docs/compatibility.md.");
      } else if (g->status == GpuSupport::candidate) {
        add(p, Severity::info, "gpu-candidate",
            fmt::format("{} ({}) is supported by upstream ZLUDA but not yet validated with zcuda", g->name, g->gfx),
            "Run zcuda verify and share zcuda report: evidence moves it to validated.");
      }
    }
    if (p.hip_runtime.loaded && p.hip_runtime.device_count && *p.hip_runtime.device_count == 0) {
      add(p, Severity::warning, "hip-no-devices",
          fmt::format("The HIP runtime ({}) sees no GPU although the system lists {} AMD GPU(s)", p.hip_runtime.path, amd.size()),
          targets_windows(p) ? "Update the Adrenalin driver; its HIP runtime may not support this GPU."
                             : "Check /dev/kfd access and that ROCm supports this GPU.");
    }
    for (const auto& d : p.hip_runtime.devices) {
      auto os = std::find_if(amd.begin(), amd.end(), [&](auto* g) { return g->hip_index && *g->hip_index == d.index; });
      if (os != amd.end() && !(*os)->gfx.empty() && (*os)->gfx_source != Source::hip && (*os)->gfx != d.gfx) {
        add(p, Severity::warning, "hip-os-mismatch", fmt::format("HIP reports {} for device {} but the OS reports {}", d.gfx, d.index, (*os)->gfx),
            "An HSA_OVERRIDE_GFX_VERSION setting or a stale driver may cause this.");
      }
    }
    findings_for_hip(p, amd, env);
  }
  for (const char* var : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION"}) {
    if (auto it = env.find(var); it != env.end()) {
      add(p, Severity::info, "device-selection-set", fmt::format("{}={} is set and changes which GPU programs see", var, it->second),
          "Unset it if programs pick the wrong GPU.");
    }
  }
  if (!p.cuda.shadowing.empty() || !p.cuda.cuda_path_env.empty()) {
    std::string what = !p.cuda.cuda_path_env.empty() ? fmt::format("CUDA_PATH is set ({})", p.cuda.cuda_path_env) : std::string();
    if (!p.cuda.shadowing.empty()) {
      if (!what.empty()) what += " and ";
      what += fmt::format("{} CUDA libraries are on the loader's search path (e.g. {})", p.cuda.shadowing.size(), p.cuda.shadowing.front());
    }
    add(p, Severity::warning, "cuda-may-shadow-zluda", what + "; a program may load NVIDIA's libraries instead of ZLUDA's",
        targets_windows(p)
            ? "Use zcuda run, which puts ZLUDA first; or remove the CUDA toolkit's bin folder from PATH and unset CUDA_PATH."
            : "Use zcuda run, which puts ZLUDA first on LD_LIBRARY_PATH; programs with an RPATH to CUDA's folder still need staging (zcuda stage).");
  }
  if (p.cuda.driver_stub_only && !p.cuda.nvidia_gpu) {
    add(p, Severity::info, "cuda-driver-stub-only", "A CUDA toolkit is installed with only its stub libcuda.so (no NVIDIA driver)",
        "Nothing to do: the stub is for linking; ZLUDA provides libcuda.so.1 at run time.");
  }
}

}  // namespace zcuda::detect
