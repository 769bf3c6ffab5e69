// Non-Windows builds: the Windows system queries do not exist here.
#include <zcuda/platform/windows_system.hpp>

namespace zcuda::platform::windows {

namespace {
std::unexpected<Error> not_windows(const char* what) { return fail(ErrorKind::unsupported, std::string(what) + " is only available on Windows"); }
}  // namespace

bool process_is_elevated() { return false; }
Result<std::vector<DxgiAdapter>> dxgi_adapters() { return not_windows("DXGI"); }
Result<std::vector<DisplayDriverKey>> display_driver_keys() { return not_windows("The display class registry key"); }
Result<std::map<std::string, RegisteredVariable>> registered_environment() { return not_windows("The registered environment"); }
Result<std::vector<InstalledProgram>> installed_programs() { return not_windows("The list of installed programs"); }
Result<std::string> read_hklm_string(const std::string&, const std::string&) { return not_windows("The registry"); }
Result<std::string> file_version(const std::filesystem::path&) { return not_windows("The PE version resource"); }
Result<std::filesystem::path> system_directory() { return not_windows("System32"); }

}  // namespace zcuda::platform::windows
