#pragma once
#include <filesystem>
#include <string>

#include <zcuda/base/error.hpp>

namespace zcuda::platform {

// A shared library loaded at run time (dlopen / LoadLibrary). Closes on destruction.
class DynamicLibrary {
 public:
  // `name` is a file name searched the platform's way, or a path.
  static Result<DynamicLibrary> open(const std::string& name);

  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  // Address of an exported symbol, or nullptr when the library does not export it.
  void* symbol(const char* name) const;

  template <class Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

  // The file the loader actually picked.
  std::filesystem::path path() const;

  // Leaves the library loaded for the rest of the process. For runtimes (HIP) that register
  // exit-time handlers and keep state that is unsafe to unload.
  void keep_loaded() { keep_loaded_ = true; }

 private:
  explicit DynamicLibrary(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
  bool keep_loaded_ = false;
};

}  // namespace zcuda::platform
