// The amdgpu kernel module and /dev/kfd, the way rocminfo checks them before it starts.
#include <zcuda/platform/device_access.hpp>

#include "probes.hpp"

namespace zcuda::detect {

void probe_linux_driver(const SystemView& view, Profile& profile) {
  auto& driver = profile.driver;
  driver.module_loaded = view.is_directory("/sys/module/amdgpu");
  driver.version = view.read_line("/sys/module/amdgpu/version").value_or("");
  driver.initstate = view.read_line("/sys/module/amdgpu/initstate").value_or("");
  driver.kfd_present = view.exists("/dev/kfd");
  if (!driver.kfd_present) return;
  if (view.rooted()) {
    profile.probe_notes.push_back("kfd: access to /dev/kfd is not checked under --root");
    return;
  }
  auto access = platform::check_device_access("/dev/kfd");
  driver.kfd_accessible = access.read_write;
  driver.kfd_error = access.error;
  driver.kfd_group = access.group;
  driver.user_in_kfd_group = access.user_in_group;
}

}  // namespace zcuda::detect
