#include <zcuda/platform/dynamic_library.hpp>

#include <dlfcn.h>
#include <link.h>

#include <fmt/format.h>

namespace zcuda::platform {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return fail(ErrorKind::not_found, fmt::format("Could not load {}: {}", name, reason ? reason : "unknown error"));
  }
  return DynamicLibrary(handle);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(other.handle_), keep_loaded_(other.keep_loaded_) {
  other.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr && !keep_loaded_) dlclose(handle_);
    handle_ = other.handle_;
    keep_loaded_ = other.keep_loaded_;
    other.handle_ = nullptr;
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr && !keep_loaded_) dlclose(handle_);
}

void* DynamicLibrary::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

std::filesystem::path DynamicLibrary::path() const {
  link_map* map = nullptr;
  if (handle_ == nullptr || dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return {};
  return std::filesystem::path(map->l_name);
}

}  // namespace zcuda::platform
