#pragma once
// Windows-only system queries: DXGI adapters, the display class registry key, file versions.
// On other platforms each returns ErrorKind::unsupported, so callers need no #ifdef.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::platform::windows {

// Whether this process runs with an elevated (administrator) token. False elsewhere.
bool process_is_elevated();

struct DxgiAdapter {
  std::string description;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t subsys_id = 0;
  std::uint32_t revision = 0;
  std::uint64_t dedicated_video_memory = 0;
  std::uint64_t shared_system_memory = 0;
  std::uint64_t luid = 0;   // HighPart << 32 | LowPart
  bool software = false;    // the Basic Render Driver
  std::string umd_version;  // a.b.c.d from CheckInterfaceSupport, when available
};
Result<std::vector<DxgiAdapter>> dxgi_adapters();

// One subkey of HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-...} (display adapters).
struct DisplayDriverKey {
  std::string subkey;                        // "0000", "0001", ...
  std::string driver_desc;                   // DriverDesc
  std::string driver_version;                // DriverVersion, e.g. 32.0.21001.9024
  std::string radeon_software_version;       // RadeonSoftwareVersion (Adrenalin), AMD only
  std::string matching_device_id;            // MatchingDeviceId, e.g. pci\ven_1002&dev_7590
  std::optional<std::uint64_t> memory_size;  // HardwareInformation.qwMemorySize
};
Result<std::vector<DisplayDriverKey>> display_driver_keys();

// The variables Windows gives programs started from now on, as the registry holds them: the
// machine's (HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment) and the user's
// (HKCU\Environment), REG_EXPAND_SZ values expanded. An installer that sets HIP_PATH changes
// these; a terminal opened before it keeps its old environment.
enum class VariableScope { machine, user };
inline std::string_view to_string(VariableScope scope) { return scope == VariableScope::machine ? "machine" : "user"; }
struct RegisteredVariable {
  std::string value;
  VariableScope scope = VariableScope::machine;
};
Result<std::map<std::string, RegisteredVariable>> registered_environment();

// One entry of Windows' list of installed programs ("Apps & features"): a subkey of
// SOFTWARE\Microsoft\Windows\CurrentVersion\Uninstall under HKLM (both registry views: 64-bit
// and 32-bit installers register in different ones) and under HKCU (per-user installs).
struct InstalledProgram {
  std::string display_name;      // DisplayName; entries without one are not listed
  std::string display_version;   // DisplayVersion, may be empty
  std::string publisher;         // Publisher, may be empty
  std::string install_location;  // InstallLocation, may be empty
};
Result<std::vector<InstalledProgram>> installed_programs();

// Reads a string value from HKEY_LOCAL_MACHINE.
Result<std::string> read_hklm_string(const std::string& key, const std::string& value);

// FileVersion of a PE file's version resource, "a.b.c.d".
Result<std::string> file_version(const std::filesystem::path& file);

// %SystemRoot%\System32
Result<std::filesystem::path> system_directory();

}  // namespace zcuda::platform::windows
