#include <zcuda/platform/dynamic_library.hpp>

#include <windows.h>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>

#include "utf8_win32.hpp"

namespace zcuda::platform {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  std::filesystem::path p = path_from_utf8(name);
  // A bare name uses the default search order (application folder, System32, PATH), as the
  // programs zcuda serves do; a path loads exactly that file and its folder's dependencies.
  DWORD flags = p.has_parent_path() ? LOAD_WITH_ALTERED_SEARCH_PATH : 0;
  HMODULE module = LoadLibraryExW(p.c_str(), nullptr, flags);
  if (module == nullptr) {
    DWORD code = GetLastError();
    return fail(ErrorKind::not_found, fmt::format("Could not load {}: {}", name, win32::error_text(code)));
  }
  return DynamicLibrary(reinterpret_cast<void*>(module));
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(other.handle_), keep_loaded_(other.keep_loaded_) {
  other.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr && !keep_loaded_) FreeLibrary(reinterpret_cast<HMODULE>(handle_));
    handle_ = other.handle_;
    keep_loaded_ = other.keep_loaded_;
    other.handle_ = nullptr;
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr && !keep_loaded_) FreeLibrary(reinterpret_cast<HMODULE>(handle_));
}

void* DynamicLibrary::symbol(const char* name) const {
  if (handle_ == nullptr) return nullptr;
  return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
}

std::filesystem::path DynamicLibrary::path() const {
  if (handle_ == nullptr) return {};
  std::wstring buffer(32768, L'\0');
  DWORD n = GetModuleFileNameW(reinterpret_cast<HMODULE>(handle_), buffer.data(), static_cast<DWORD>(buffer.size()));
  buffer.resize(n);
  return std::filesystem::path(buffer);
}

}  // namespace zcuda::platform
