// Predicting upstream ZLUDA's "ZLUDA failed to load …" dialogs from detection.
#include <algorithm>

#include <fmt/format.h>

#include <zcuda/launch/load_dialogs.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

namespace {

struct Source {
  LoadDialog dialog;
  std::vector<const char*> files;  // what ZLUDA tries, in its order
  const char* component;           // detect's name for the library in a HIP install
};

const std::vector<Source>& sources() {
  // zluda_blas, zluda_blaslt, zluda_sparse and zluda_dnn's lib.rs name these files.
  static const std::vector<Source> table = {
      {{"cublas", "rocblas.dll", "ZLUDA failed to load rocblas.dll"}, {"rocblas.dll"}, "rocblas"},
      {{"cublaslt", "hipblaslt.dll or libhipblaslt.dll", "ZLUDA failed to load hipblaslt.dll or libhipblaslt.dll"},
       {"hipblaslt.dll", "libhipblaslt.dll"},
       "hipblaslt"},
      {{"cusparse", "rocsparse.dll", "ZLUDA failed to load rocsparse.dll"}, {"rocsparse.dll"}, "rocsparse"},
      {{"cudnn", "MIOpen.dll", "ZLUDA failed to load MIOpen.dll"}, {"MIOpen.dll"}, "miopen"},
  };
  return table;
}

}  // namespace

const std::vector<LoadDialog>& load_dialogs() {
  static const std::vector<LoadDialog> all = [] {
    std::vector<LoadDialog> out;
    for (const auto& s : sources()) out.push_back(s.dialog);
    return out;
  }();
  return all;
}

std::vector<LoadDialog> predicted_load_dialogs(const fs::path& runtime_dir, const detect::Profile& profile) {
  std::vector<LoadDialog> out;
  if (profile.os != platform::Os::windows) return out;
  const detect::HipInstall* hip = profile.selected_hip();
  for (const auto& s : sources()) {
    const bool beside = std::any_of(s.files.begin(), s.files.end(), [&](const char* file) {
      std::error_code ec;
      return fs::is_regular_file(runtime_dir / file, ec);
    });
    const bool in_sdk = hip != nullptr && std::any_of(hip->libraries.begin(), hip->libraries.end(),
                                                      [&](const detect::HipLibrary& l) { return l.component == s.component && l.found; });
    if (!beside && !in_sdk) out.push_back(s.dialog);
  }
  return out;
}

std::string cuda_role_of_check(const std::string& check) {
  const std::string role = check.substr(0, check.find('.'));
  const auto& all = load_dialogs();
  return std::any_of(all.begin(), all.end(), [&](const LoadDialog& d) { return d.cuda_role == role; }) ? role : std::string();
}

std::string describe(const LoadDialog& dialog) {
  return fmt::format(
      "ZLUDA shows a modal dialog \"{}\" when {} is neither beside its DLLs nor in %HIP_PATH%\\bin, and the program waits on it until the "
      "dialog is closed",
      dialog.title, dialog.library);
}

}  // namespace zcuda::launch
