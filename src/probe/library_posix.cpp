#include "library_os.hpp"

#include <dlfcn.h>
#include <link.h>

namespace zcuda::probe::os {

void* load(const std::string& name, std::string& error, bool& present) {
  dlerror();
  // Lazy binding, as the dynamic linker binds an application's libraries by default.
  void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    error = reason ? reason : name + ": unknown dlopen error";
    // ld.so names the file it could not open: the library itself when it is absent, otherwise a
    // library it needs ("libMIOpen.so.1: cannot open shared object file"), or a file it found
    // but could not load ("/path/libcudnn.so.9: invalid ELF header").
    present = error.rfind(name + ": cannot open shared object file", 0) != 0;
  }
  return handle;
}

std::string loaded_path(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return {};
  return map->l_name;
}

void* symbol(void* handle, const char* name) { return dlsym(handle, name); }

std::vector<std::string> library_names(const std::string& role) {
  // CUDA 13 / 12 / 11 names (docs/verify.md). cuSPARSE kept major 12 in CUDA 13, cuFFT's major
  // is the CUDA major minus one, cuSOLVER's too (12 in CUDA 13, 11 in CUDA 11 and 12).
  if (role == "driver") return {"libcuda.so.1"};
  if (role == "cublas") return {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
  if (role == "cublaslt") return {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
  if (role == "cusparse") return {"libcusparse.so.12", "libcusparse.so.11"};
  if (role == "cufft") return {"libcufft.so.12", "libcufft.so.11", "libcufft.so.10"};
  if (role == "cudnn") return {"libcudnn.so.9", "libcudnn.so.8"};
  if (role == "cusolver") return {"libcusolver.so.12", "libcusolver.so.11"};
  if (role == "nvrtc") return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};
  if (role == "nvml") return {"libnvidia-ml.so.1"};
  return {};
}

bool built_for_windows() { return false; }

}  // namespace zcuda::probe::os
