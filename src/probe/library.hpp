#pragma once
// Loads a CUDA library by the names applications use and reports which file the loader picked.
// The probe reports path and size only; the runner (zcuda, which links OpenSSL) adds SHA-256.
#include <cstdint>
#include <string>
#include <vector>

namespace zcuda::probe {

struct LoadedFile {
  std::string role;       // "driver", "cublas", ...
  std::string requested;  // the name that loaded: "libcublas.so.13"
  std::string path;       // the file as the loader names it (may be a symlink)
  std::string real_path;  // that file with links resolved
  long long size = -1;    // bytes of real_path; -1 when unknown
};

class Library {
 public:
  Library() = default;
  // Tries `names` in order, each searched the platform's way (LD_LIBRARY_PATH, ld.so.cache /
  // the application folder, System32, PATH). Empty library and `error` set when none loads;
  // `present` then says whether a file by one of the names is there but would not load (a
  // library it needs is missing, or it is not a library for this machine).
  static Library open(const std::string& role, const std::vector<std::string>& names, std::string& error, bool& present);

  bool loaded() const { return handle_ != nullptr; }
  void* symbol(const char* name) const;
  const LoadedFile& file() const { return file_; }

  // Libraries stay loaded until the process exits: unloading CUDA libraries mid-process is
  // something applications never do, and some vendor libraries misbehave on it.
 private:
  void* handle_ = nullptr;
  LoadedFile file_;
};

// Library names per role, newest first, for this operating system.
std::vector<std::string> library_names(const std::string& role);

// True when the probe was built for Windows (fat binaries record the host operating system).
bool built_for_windows();

}  // namespace zcuda::probe
