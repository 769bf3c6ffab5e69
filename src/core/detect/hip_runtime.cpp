// Asks the HIP runtime itself: device count, gcnArchName, memory. The struct layout depends on
// which symbol is resolved: hipGetDevicePropertiesR0600 fills hipDeviceProp_tR0600; the plain
// export keeps the legacy R0000 layout (docs/detect.md, "HIP runtime").
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/dynamic_library.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/windows_system.hpp>

#include "probes.hpp"
#include "zluda_hip_choice.hpp"

namespace zcuda::detect {

namespace {

struct Layout {
  const char* symbol;
  std::size_t total_memory, integrated, pci_bus, pci_device, pci_domain, gcn_arch_name;
};
// Offsets computed from ROCm/HIP's hip_runtime_api.h (R0600) and hip_deprecated.h (R0000) on x86-64.
constexpr Layout kR0600{"hipGetDevicePropertiesR0600", 288, 396, 584, 588, 592, 1160};
constexpr Layout kR0000{"hipGetDeviceProperties", 256, 652, 368, 372, 364, 396};

using IntFn = int (*)(int*);
using PropsFn = int (*)(void*, int);

template <class T>
T field(const unsigned char* props, std::size_t offset) {
  T value{};
  std::memcpy(&value, props + offset, sizeof value);
  return value;
}

std::string fixed_string(const unsigned char* props, std::size_t offset, std::size_t size) {
  const char* begin = reinterpret_cast<const char*>(props + offset);
  return std::string(begin, strnlen(begin, size));
}

std::vector<std::string> library_candidates(const platform::Environment& env, Profile& profile) {
  std::vector<std::string> names;
  if (targets_windows(profile)) {
    // The one ZLUDA would get first (zluda_hip_choice.hpp), then the driver's copies in System32.
    auto system = platform::windows::system_directory();
    if (system) {
      // ZLUDA searches %HIP_PATH%\bin; zcuda run sets HIP_PATH to the HIP SDK it selected.
      std::vector<std::filesystem::path> folders;
      if (auto key = platform::variable_key(env, "HIP_PATH", platform::Os::windows); key && !env.at(*key).empty()) {
        folders.push_back(path_from_utf8(env.at(*key)) / "bin");
      } else if (const auto* sdk = profile.selected_hip()) {
        folders.push_back(path_from_utf8(sdk->root) / "bin");
      }
      auto choice = zluda_hip_choice(folders, *system);
      if (!choice.path.empty()) {
        names.push_back(path_to_utf8(choice.path));
        profile.hip_runtime.zluda_choice = choice.why;
      }
    }
    for (const char* dll : {"amdhip64_7.dll", "amdhip64_6.dll"}) {
      const std::string name = system ? path_to_utf8(*system / dll) : std::string(dll);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
  }
  for (const auto& install : profile.hip_installs) {
    for (const auto& lib : install.libraries) {
      if (lib.component == "hip-runtime" && lib.found) names.push_back(lib.path);
    }
  }
  for (const char* so : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"}) names.push_back(so);
  return names;
}

}  // namespace

void probe_hip_runtime(const platform::Environment& env, Profile& profile) {
  HipRuntime& hip = profile.hip_runtime;
  hip.probed = true;
  std::optional<platform::DynamicLibrary> library;
  std::vector<std::string> failures;
  const std::vector<std::string> candidates = library_candidates(env, profile);
  for (const auto& name : candidates) {
    auto opened = platform::DynamicLibrary::open(name);
    if (opened) {
      hip.library = name;
      library.emplace(std::move(*opened));
      break;
    }
    failures.push_back(opened.error().message);
  }
  // The reason names the runtime ZLUDA would get; another one that loaded instead has none.
  if (!hip.zluda_choice.empty() && (!library || hip.library != candidates.front())) hip.zluda_choice.clear();
  if (!library) {
    hip.error = failures.empty() ? "no candidate library" : failures.back();
    return;
  }
  hip.loaded = true;
  // The HIP runtime registers exit-time handlers and keeps global state: unloading it before
  // the process ends is unsafe (and its allocations would then be reported as leaks).
  library->keep_loaded();
  hip.path = path_to_utf8(library->path());
  if (targets_windows(profile)) {
    if (auto version = platform::windows::file_version(library->path())) hip.file_version = *version;
  }
  auto runtime_version = library->function<IntFn>("hipRuntimeGetVersion");
  auto driver_version = library->function<IntFn>("hipDriverGetVersion");
  auto device_count = library->function<IntFn>("hipGetDeviceCount");
  int value = 0;
  if (runtime_version && runtime_version(&value) == 0) hip.runtime_version = value;
  if (driver_version && driver_version(&value) == 0) hip.driver_version = value;
  if (device_count == nullptr) {
    hip.error = "the library exports no hipGetDeviceCount";
    return;
  }
  int count = 0;
  int status = device_count(&count);
  hip.count_status = status;
  hip.device_count = status == 0 ? count : 0;
  if (status != 0) {
    // 100 is hipErrorNoDevice: a clean "no GPU", not a failure of the runtime.
    hip.error = status == 100 ? "hipErrorNoDevice (100): the HIP runtime sees no GPU" : fmt::format("hipGetDeviceCount returned {}", status);
    return;
  }
  const Layout* layout = &kR0600;
  auto props_fn = library->function<PropsFn>(kR0600.symbol);
  if (props_fn == nullptr) {
    layout = &kR0000;
    props_fn = library->function<PropsFn>(kR0000.symbol);
  }
  if (props_fn == nullptr) {
    hip.error = "the library exports no hipGetDeviceProperties";
    return;
  }
  hip.props_symbol = layout->symbol;
  for (int i = 0; i < count && i < 64; ++i) {
    // Larger than either struct, so a runtime that writes a newer, longer layout stays in bounds.
    alignas(16) unsigned char props[8192] = {};
    if (props_fn(props, i) != 0) continue;
    HipDevice device;
    device.index = i;
    device.name = fixed_string(props, 0, 256);
    device.gcn_arch_name = fixed_string(props, layout->gcn_arch_name, 256);
    device.gfx = device.gcn_arch_name.substr(0, device.gcn_arch_name.find(':'));
    device.total_memory = field<std::size_t>(props, layout->total_memory);
    device.integrated = field<int>(props, layout->integrated) != 0;
    device.pci_bus = field<int>(props, layout->pci_bus);
    device.pci_device = field<int>(props, layout->pci_device);
    device.pci_domain = field<int>(props, layout->pci_domain);
    hip.devices.push_back(std::move(device));
  }

  // Reconcile with what the OS reported: match by PCI location, else by enumeration order.
  for (const auto& device : hip.devices) {
    std::string address = fmt::format("{:04x}:{:02x}:{:02x}.0", std::max(device.pci_domain, 0), device.pci_bus, device.pci_device);
    auto it = std::find_if(profile.gpus.begin(), profile.gpus.end(),
                           [&](const Gpu& g) { return g.vendor_id == kVendorAmd && g.pci_address.substr(0, 10) == address.substr(0, 10); });
    if (it == profile.gpus.end()) {
      it = std::find_if(profile.gpus.begin(), profile.gpus.end(), [&](const Gpu& g) { return g.hip_index && *g.hip_index == device.index; });
    }
    if (it == profile.gpus.end()) {
      Gpu gpu;
      gpu.vendor_id = kVendorAmd;
      gpu.name = device.name;
      gpu.name_source = Source::hip;
      gpu.pci_address = address;
      profile.gpus.push_back(std::move(gpu));
      it = std::prev(profile.gpus.end());
    }
    it->seen_by.push_back("hip");
    it->hip_index = device.index;
    if (it->gfx.empty() || it->gfx_source == Source::zcuda_table) {
      it->gfx = device.gfx;
      it->gfx_source = Source::hip;
    }
    if (!it->vram_bytes) it->vram_bytes = device.total_memory;
    if (device.integrated && !it->integrated) {
      it->integrated = true;
      it->integrated_reason = "the HIP runtime reports it as integrated";
    }
  }
}

}  // namespace zcuda::detect
