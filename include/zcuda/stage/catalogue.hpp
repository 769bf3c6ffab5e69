#pragma once
// The catalogue of CUDA library names: which ones a ZLUDA runtime folder serves (and with what
// AMD backend), which stay NVIDIA's, and which have no backend on this machine.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::stage {

// A library family ZLUDA implements.
struct Family {
  std::string_view id;         // "cuda", "nvml", "cublas", "cublaslt", "cusparse", "cufft", "cudnn", "nvapi"
  std::string_view display;    // "CUDA driver", "cuBLAS", ...
  std::string_view backend;    // what it forwards to: "HIP runtime", "rocBLAS", "MIOpen", ...
  bool driver_level = false;   // loaded by name at run time by the CUDA runtime: placed next to the program
  std::string_view stub_note;  // non-empty when ZLUDA's implementation answers "not supported"
};

// The family of a name ZLUDA serves (nvcuda.dll, cublas64_12.dll, libcuda.so.1, ...), matched
// the way the OS's loader matches names (case-insensitively on Windows).
std::optional<Family> served_family(std::string_view file_name, platform::Os os);

// Files the runtime ships beside the driver that must sit next to it (nvcudart_hybrid64.dll).
bool is_driver_companion(std::string_view file_name, platform::Os os);

// The library an NVIDIA-only name belongs to ("CUDA runtime", "NVRTC", "cuRAND", ...): ZLUDA
// does not replace these; the program keeps using NVIDIA's redistributable files.
std::optional<std::string_view> nvidia_only_library(std::string_view file_name, platform::Os os);

bool same_name(std::string_view a, std::string_view b, platform::Os os);

// A library file the runtime folder provides.
struct RuntimeFile {
  std::string name;            // as found in the folder
  std::filesystem::path path;  // the file itself (symbolic links resolved)
  Family family;
};

// Lists what a runtime folder serves. Fails when the folder does not exist or serves nothing.
Result<std::vector<RuntimeFile>> scan_runtime(const std::filesystem::path& dir, platform::Os os);

// Which AMD backends this machine has, as far as staging needs to know, taken from detection's
// view of the HIP SDK / ROCm install.
struct Backends {
  bool miopen = false;
  std::string miopen_evidence;  // the file found, or where it was looked for
};
Backends backends_from_detection(const detect::Profile& profile);

// True when `family` can work with these backends (cuDNN needs MIOpen).
bool has_backend(const Family& family, const Backends& backends);

}  // namespace zcuda::stage
