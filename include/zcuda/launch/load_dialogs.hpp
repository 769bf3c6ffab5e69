#pragma once
// The modal dialogs upstream ZLUDA opens on Windows when a HIP math library will not load: its
// cuBLAS, cuBLASLt, cuSPARSE and cuDNN look for rocblas.dll, hipblaslt.dll (or libhipblaslt.dll),
// rocsparse.dll and MIOpen.dll beside themselves, then in %HIP_PATH%\bin, and otherwise show a
// TaskDialog "ZLUDA failed to load rocblas.dll" (vosen/ZLUDA zluda_windows/src/lib.rs,
// try_load_from_self_or_hip_with_message). A program, or a verify probe, then waits on it until
// someone closes it or kills the process, so zcuda predicts it from detection before launching.
#include <filesystem>
#include <string>
#include <vector>

#include <zcuda/detect/profile.hpp>

namespace zcuda::launch {

struct LoadDialog {
  std::string cuda_role;  // the CUDA library that opens it: "cublas", "cublaslt", "cusparse", "cudnn"
  std::string library;    // "rocblas.dll", "hipblaslt.dll or libhipblaslt.dll", ...
  std::string title;      // the dialog's text, "ZLUDA failed to load rocblas.dll"
};

// Every CUDA role whose dialog would open in a launch through the runtime in `runtime_dir`: the
// HIP library is neither there nor in the bin folder of the HIP SDK detection selected (what
// zcuda passes as HIP_PATH). Empty unless the profile is a Windows machine's.
std::vector<LoadDialog> predicted_load_dialogs(const std::filesystem::path& runtime_dir, const detect::Profile& profile);

// Every dialog of the kind, predicted or not: what a hang in those roles may be.
const std::vector<LoadDialog>& load_dialogs();

// The role a verify check exercises ("cublas.sgemm" -> "cublas"); empty for other checks.
std::string cuda_role_of_check(const std::string& check);

// What to tell the user when one is expected or suspected.
std::string describe(const LoadDialog& dialog);

}  // namespace zcuda::launch
