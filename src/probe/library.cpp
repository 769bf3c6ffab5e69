#include "library.hpp"

#include <filesystem>
#include <system_error>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <link.h>
#endif

namespace zcuda::probe {
namespace {

#ifdef _WIN32
std::string to_utf8(const std::wstring& wide) {
  if (wide.empty()) return {};
  const int size = WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<std::size_t>(size), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), out.data(), size, nullptr, nullptr);
  return out;
}

std::wstring to_wide(const std::string& text) {
  if (text.empty()) return {};
  const int size = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(size), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), size);
  return out;
}

void* load(const std::string& name, std::string& error, bool& present) {
  // The standard search (application folder first, then System32, then PATH) is what CUDA
  // applications get, and what puts a ZLUDA copy beside the executable ahead of NVIDIA's.
  HMODULE module = LoadLibraryW(to_wide(name).c_str());
  if (module == nullptr) {
    const DWORD code = GetLastError();
    // ERROR_MOD_NOT_FOUND is also what a missing dependency gives: the file itself being on the
    // search path tells the two apart.
    wchar_t found[MAX_PATH];
    present = code != ERROR_MOD_NOT_FOUND || SearchPathW(nullptr, to_wide(name).c_str(), nullptr, MAX_PATH, found, nullptr) > 0;
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
  return to_utf8(buffer);
}
#else
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
#endif

}  // namespace

Library Library::open(const std::string& role, const std::vector<std::string>& names, std::string& error, bool& present) {
  Library lib;
  std::string reasons;
  present = false;
  for (const auto& name : names) {
    std::string reason;
    bool there = false;
    void* handle = load(name, reason, there);
    if (handle == nullptr) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
      present = present || there;
      continue;
    }
    lib.handle_ = handle;
    lib.file_.role = role;
    lib.file_.requested = name;
    lib.file_.path = loaded_path(handle);
    std::error_code ec;
    // The path text is UTF-8; char8_t makes std::filesystem read it so on every platform.
    const auto real = std::filesystem::canonical(std::filesystem::path(std::u8string(lib.file_.path.begin(), lib.file_.path.end())), ec);
    if (!ec) {
#ifdef _WIN32
      lib.file_.real_path = to_utf8(real.wstring());
#else
      lib.file_.real_path = real.string();
#endif
      const auto size = std::filesystem::file_size(real, ec);
      if (!ec) lib.file_.size = static_cast<long long>(size);
    }
    return lib;
  }
  error = reasons;
  return lib;
}

void* Library::symbol(const char* name) const {
  if (handle_ == nullptr) return nullptr;
#ifdef _WIN32
  return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
#else
  return dlsym(handle_, name);
#endif
}

std::vector<std::string> library_names(const std::string& role) {
  // CUDA 13 / 12 / 11 names (docs/verify.md). cuSPARSE kept major 12 in CUDA 13, cuFFT's major
  // is the CUDA major minus one, cuSOLVER's too (12 in CUDA 13, 11 in CUDA 11 and 12).
#ifdef _WIN32
  if (role == "driver") return {"nvcuda.dll"};
  if (role == "cublas") return {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"};
  if (role == "cublaslt") return {"cublasLt64_13.dll", "cublasLt64_12.dll", "cublasLt64_11.dll"};
  if (role == "cusparse") return {"cusparse64_12.dll", "cusparse64_11.dll"};
  if (role == "cufft") return {"cufft64_12.dll", "cufft64_11.dll", "cufft64_10.dll"};
  if (role == "cudnn") return {"cudnn64_9.dll", "cudnn64_8.dll"};
  if (role == "cusolver") return {"cusolver64_12.dll", "cusolver64_11.dll"};
  if (role == "nvrtc") return {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll"};
  if (role == "nvml") return {"nvml.dll"};
#else
  if (role == "driver") return {"libcuda.so.1"};
  if (role == "cublas") return {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
  if (role == "cublaslt") return {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
  if (role == "cusparse") return {"libcusparse.so.12", "libcusparse.so.11"};
  if (role == "cufft") return {"libcufft.so.12", "libcufft.so.11", "libcufft.so.10"};
  if (role == "cudnn") return {"libcudnn.so.9", "libcudnn.so.8"};
  if (role == "cusolver") return {"libcusolver.so.12", "libcusolver.so.11"};
  if (role == "nvrtc") return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};
  if (role == "nvml") return {"libnvidia-ml.so.1"};
#endif
  return {};
}

bool built_for_windows() {
#ifdef _WIN32
  return true;
#else
  return false;
#endif
}

}  // namespace zcuda::probe
