#include <zcuda/platform/system_info.hpp>

#include <windows.h>

#include <fmt/format.h>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/windows_system.hpp>

namespace zcuda::platform {

SystemInfo system_info() {
  SystemInfo info;
  const std::string current_version = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
  info.os_name = windows::read_hklm_string(current_version, "ProductName").value_or("Windows");
  // Windows 11 still reports "Windows 10" in ProductName; the build number tells them apart.
  std::string build = windows::read_hklm_string(current_version, "CurrentBuildNumber").value_or("");
  std::string display = windows::read_hklm_string(current_version, "DisplayVersion").value_or("");
  info.os_version = build.empty() ? std::string() : fmt::format("10.0.{}{}", build, display.empty() ? "" : " (" + display + ")");
  if (!build.empty() && std::atoi(build.c_str()) >= 22000 && info.os_name.find("Windows 10") == 0) info.os_name.replace(8, 2, "11");
  SYSTEM_INFO si{};
  GetNativeSystemInfo(&si);
  info.architecture = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                      : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "arm64"
                                                                                  : "x86";
  info.cpu = windows::read_hklm_string("HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", "ProcessorNameString").value_or("");
  MEMORYSTATUSEX memory{};
  memory.dwLength = sizeof memory;
  if (GlobalMemoryStatusEx(&memory)) info.ram_bytes = memory.ullTotalPhys;
  info.host_name = get_env("COMPUTERNAME").value_or("");
  info.user_name = get_env("USERNAME").value_or("");
  info.home_folder = get_env("USERPROFILE").value_or("");
  return info;
}

}  // namespace zcuda::platform
