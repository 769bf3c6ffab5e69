#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace zcuda::platform {

// Facts about the machine for reports. Identifying values (host and user names, home folder)
// are gathered so the report can redact them, never to print them.
struct SystemInfo {
  std::string os_name;       // "Debian GNU/Linux 12 (bookworm)", "Windows 11 Pro"
  std::string os_version;    // kernel release on Linux; "10.0.26100" (build) on Windows
  std::string architecture;  // "x86_64"
  std::string cpu;           // model name
  std::optional<std::uint64_t> ram_bytes;
  std::string host_name;
  std::string user_name;
  std::string home_folder;
};

SystemInfo system_info();

}  // namespace zcuda::platform
