#include "library_os.hpp"

#include <windows.h>

// Header-only UTF-8 <-> UTF-16 of the platform layer (windows.h only; no library to link).
#include "../core/platform/utf8_win32.hpp"

namespace zcuda::probe::os {

void* load(const std::string& name, std::string& error, bool& present) {
  // The standard search (application folder first, then System32, then PATH) is what CUDA
  // applications get, and what puts a ZLUDA copy beside the executable ahead of NVIDIA's.
  HMODULE module = LoadLibraryW(platform::win32::widen(name).c_str());
  if (module == nullptr) {
    const DWORD code = GetLastError();
    // ERROR_MOD_NOT_FOUND is also what a missing dependency gives: the file itself being on the
    // search path tells the two apart.
    wchar_t found[MAX_PATH];
    present = code != ERROR_MOD_NOT_FOUND || SearchPathW(nullptr, platform::win32::widen(name).c_str(), nullptr, MAX_PATH, found, nullptr) > 0;
    if (code == ERROR_MOD_NOT_FOUND) {
      error = name + (present ? ": found, but a DLL it needs is missing" : ": not found");
    } else {
      error = name + ": Windows error " + std::to_string(code);
    }
  }
  return reinterpret_cast<void*>(module);
}

std::string loaded_path(void* handle) {
  std::wstring buffer(32768, L'\0');
  const DWORD n = GetModuleFileNameW(reinterpret_cast<HMODULE>(handle), buffer.data(), static_cast<DWORD>(buffer.size()));
  buffer.resize(n);
  return platform::win32::narrow(buffer);
}

void* symbol(void* handle, const char* name) { return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle), name)); }

std::vector<std::string> library_names(const std::string& role) {
  // CUDA 13 / 12 / 11 names (docs/verify.md). cuSPARSE kept major 12 in CUDA 13, cuFFT's major
  // is the CUDA major minus one, cuSOLVER's too (12 in CUDA 13, 11 in CUDA 11 and 12).
  if (role == "driver") return {"nvcuda.dll"};
  if (role == "cublas") return {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"};
  if (role == "cublaslt") return {"cublasLt64_13.dll", "cublasLt64_12.dll", "cublasLt64_11.dll"};
  if (role == "cusparse") return {"cusparse64_12.dll", "cusparse64_11.dll"};
  if (role == "cufft") return {"cufft64_12.dll", "cufft64_11.dll", "cufft64_10.dll"};
  if (role == "cudnn") return {"cudnn64_9.dll", "cudnn64_8.dll"};
  if (role == "cusolver") return {"cusolver64_12.dll", "cusolver64_11.dll"};
  if (role == "nvrtc") return {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll"};
  if (role == "nvml") return {"nvml.dll"};
  return {};
}

bool built_for_windows() { return true; }

}  // namespace zcuda::probe::os
