#pragma once
// The machine profile `zcuda detect` builds: what each probe saw, reconciled, with findings that
// say what is wrong and what to do. docs/detect.md documents the JSON form.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/platform/os.hpp>

namespace zcuda::detect {

inline constexpr std::uint32_t kVendorAmd = 0x1002;
inline constexpr std::uint32_t kVendorNvidia = 0x10de;
inline constexpr std::uint32_t kVendorIntel = 0x8086;

// Where a GPU stands with zcuda: an AMD arch listed in manifests/gpu-support.json as validated
// or candidate, an AMD GPU that is not (or whose arch is unknown), or another vendor's GPU.
// The words (to_string) are what detect --json prints: "validated", "candidate",
// "unsupported", "not-amd".
enum class GpuSupport { validated, candidate, unsupported, not_amd };
std::string_view to_string(GpuSupport support);
std::optional<GpuSupport> gpu_support_from(std::string_view word);

// Where a GPU's name or gfx target came from. The words (to_string) are what detect --json
// prints: "kfd", "hip", "zcuda-table", "amdgpu.ids", "pci.ids", "pci-id" (the bare ids), "dxgi",
// "registry"; none is "" (detect --json prints null for an unknown gfx's source).
enum class Source { none, kfd, hip, zcuda_table, amdgpu_ids, pci_ids, pci_id, dxgi, registry };
std::string_view to_string(Source source);

struct Gpu {
  std::string name;  // marketing name when known
  Source name_source = Source::none;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::optional<std::uint32_t> revision;
  std::string gfx;                   // "gfx1200"; empty when unknown or not AMD
  Source gfx_source = Source::none;  // kfd, hip or zcuda_table
  bool integrated = false;
  std::string integrated_reason;  // why zcuda thinks so
  std::optional<std::uint64_t> vram_bytes;
  std::string pci_address;  // 0000:03:00.0
  std::string render_node;  // /dev/dri/renderD128
  std::string driver;       // kernel driver bound (amdgpu, nvidia, i915, ...)
  std::optional<int> kfd_node;
  std::optional<int> hip_index;       // position in the HIP runtime's (or KFD's) enumeration
  std::optional<std::uint64_t> luid;  // Windows adapter LUID
  std::vector<std::string> seen_by;   // probes that saw it: pci, drm, kfd, hip, dxgi, registry
  GpuSupport status = GpuSupport::unsupported;
  std::string status_source;
  std::string min_hip_sdk;
};

struct AmdDriver {
  bool module_loaded = false;  // Linux: /sys/module/amdgpu exists
  std::string version;         // Linux: /sys/module/amdgpu/version; Windows: DriverVersion
  std::string initstate;       // Linux: "live" when usable
  bool kfd_present = false;
  std::optional<bool> kfd_accessible;  // unset when not checked (--root)
  std::string kfd_error;
  std::string kfd_group;  // group owning /dev/kfd
  std::optional<bool> user_in_kfd_group;
  std::string adrenalin_version;  // Windows: RadeonSoftwareVersion
  std::string driver_desc;        // Windows: DriverDesc of the AMD adapter
};

struct HipDevice {
  int index = 0;
  std::string name;
  std::string gcn_arch_name;  // as reported, e.g. "gfx1100:sramecc-:xnack-"
  std::string gfx;            // features stripped
  std::uint64_t total_memory = 0;
  bool integrated = false;
  int pci_bus = -1;
  int pci_device = -1;
  int pci_domain = -1;
};

struct HipRuntime {
  bool probed = false;  // false with --root or --no-hip
  bool loaded = false;
  std::string library;       // the file name asked for
  std::string path;          // the file loaded
  std::string file_version;  // Windows: version resource
  std::string props_symbol;  // which hipGetDeviceProperties* was resolved (decides the layout)
  // Windows: why this is the amdhip64 upstream ZLUDA would get (the performance library it
  // loads first brings its own); empty off Windows or when another runtime loaded instead.
  std::string zluda_choice;
  std::optional<int> runtime_version;
  std::optional<int> driver_version;
  std::optional<int> device_count;
  std::optional<int> count_status;  // hipError_t of hipGetDeviceCount
  std::string error;
  std::vector<HipDevice> devices;
};

struct HipLibrary {
  std::string component;  // hip-runtime, rocblas, hipblaslt, rocsparse, hipfft, miopen, hipinfo
  bool found = false;
  std::string path;
};

struct KernelSupport {
  bool rocblas = false;  // TensileLibrary*_<gfx>.dat present
  std::vector<std::string> rocblas_files;
  bool rocblas_code_objects = false;
  bool hipblaslt = false;
  std::vector<std::string> hipblaslt_files;
};

struct HipInstall {
  std::string root;
  std::string version;         // "6.4.0", "6.4"
  std::string version_source;  // ".info/version", "hip_version.h", "folder name"
  std::string found_via;       // HIP_PATH, HIP_PATH_64, ROCM_PATH, ProgramFiles, /opt/rocm, system
  std::vector<HipLibrary> libraries;
  std::vector<std::string> rocblas_archs;  // every gfx rocBLAS has kernels for
  std::vector<std::string> hipblaslt_archs;
  std::map<std::string, KernelSupport> kernels;  // per detected gfx
  bool kernels_read = false;                     // whether the three above were read (detect::add_kernel_support)
  // Linux: the unversioned names ZLUDA's libraries are linked against (libamdhip64.so,
  // librocblas.so, libhipblaslt.so, librocsparse.so, librocm_smi64.so; vosen/ZLUDA
  // xtask/src/main.rs) that this install lacks, though it may hold versioned files (.so.6).
  std::vector<std::string> missing_zluda_names;
};

struct CudaPresence {
  bool nvidia_gpu = false;
  std::vector<std::string> toolkits;   // CUDA toolkit roots
  std::string cuda_path_env;           // CUDA_PATH when set
  std::vector<std::string> shadowing;  // CUDA library files on the loader's path that ZLUDA also provides
  bool driver_stub_only = false;       // only a stub libcuda.so was found
};

enum class Severity { error, warning, info };

struct Finding {
  Severity severity = Severity::info;
  std::string code;  // stable, kebab-case
  std::string message;
  std::string hint;
};

struct Profile {
  platform::Os os = platform::Os::linux;  // the system looked at (--root: Linux)
  std::string root;                       // "/" or the --root folder
  std::vector<Gpu> gpus;
  AmdDriver driver;
  HipRuntime hip_runtime;
  std::vector<HipInstall> hip_installs;  // every install found; the first is the one used
  CudaPresence cuda;
  std::vector<Finding> findings;
  std::vector<std::string> probe_notes;  // what a probe could not do, for -v and reports

  const HipInstall* selected_hip() const { return hip_installs.empty() ? nullptr : &hip_installs.front(); }
  bool ready() const;  // no finding of severity error: ready for CUDA programs
  // Windows: ready for 32-bit PhysX, which upstream runs without the HIP SDK
  // (docs/src/quick_start.md): an AMD GPU and no error other than the HIP SDK's.
  bool ready_for_physx32() const;
};

std::string_view to_string(Severity severity);
void to_json(nlohmann::json& out, const Profile& profile);

}  // namespace zcuda::detect
