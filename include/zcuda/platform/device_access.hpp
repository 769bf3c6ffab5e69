#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace zcuda::platform {

// Whether the current user can open a device node read-write (/dev/kfd), and if not, which
// group owns it and whether the user is in that group.
struct DeviceAccess {
  bool exists = false;
  bool read_write = false;
  std::string error;  // strerror of the failed open
  std::string group;  // owning group name
  std::optional<bool> user_in_group;
};

DeviceAccess check_device_access(const std::filesystem::path& device);

}  // namespace zcuda::platform
