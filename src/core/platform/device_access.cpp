#include <zcuda/platform/device_access.hpp>

#ifndef _WIN32
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>
#endif

namespace zcuda::platform {

#ifdef _WIN32
DeviceAccess check_device_access(const std::filesystem::path&) { return {}; }
#else
DeviceAccess check_device_access(const std::filesystem::path& device) {
  DeviceAccess access;
  struct stat info {};
  if (stat(device.c_str(), &info) != 0) return access;
  access.exists = true;
  int fd = open(device.c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    access.read_write = true;
    close(fd);
  } else {
    access.error = std::strerror(errno);
  }
  if (group* g = getgrgid(info.st_gid)) access.group = g->gr_name;
  std::vector<gid_t> groups(static_cast<std::size_t>(std::max(getgroups(0, nullptr), 0)));
  int n = getgroups(static_cast<int>(groups.size()), groups.data());
  bool member = getegid() == info.st_gid;
  for (int i = 0; i < n; ++i) member = member || groups[static_cast<std::size_t>(i)] == info.st_gid;
  access.user_in_group = member;
  return access;
}
#endif

}  // namespace zcuda::platform
