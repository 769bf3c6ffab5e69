#include "library.hpp"

#include <filesystem>
#include <system_error>

#include "library_os.hpp"

namespace zcuda::probe {

using os::load;
using os::loaded_path;

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
      const std::u8string real_text = real.u8string();
      lib.file_.real_path.assign(real_text.begin(), real_text.end());
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
  return os::symbol(handle_, name);
}

std::vector<std::string> library_names(const std::string& role) { return os::library_names(role); }

bool built_for_windows() { return os::built_for_windows(); }

}  // namespace zcuda::probe
