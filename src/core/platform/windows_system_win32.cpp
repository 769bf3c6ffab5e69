#include <zcuda/platform/windows_system.hpp>

#include <windows.h>

#include <algorithm>
#include <dxgi.h>

#include "utf8_win32.hpp"

#include <fmt/format.h>
#include <zcuda/base/path_text.hpp>

namespace zcuda::platform::windows {

namespace {

using win32::narrow;
using win32::widen;

std::optional<std::wstring> query_string(HKEY key, const wchar_t* name) {
  DWORD type = 0;
  DWORD size = 0;
  if (RegQueryValueExW(key, name, nullptr, &type, nullptr, &size) != ERROR_SUCCESS) return std::nullopt;
  if (type != REG_SZ && type != REG_EXPAND_SZ && type != REG_MULTI_SZ) return std::nullopt;
  std::wstring value(size / sizeof(wchar_t) + 1, L'\0');
  if (RegQueryValueExW(key, name, nullptr, &type, reinterpret_cast<BYTE*>(value.data()), &size) != ERROR_SUCCESS) return std::nullopt;
  value.resize(wcsnlen(value.c_str(), value.size()));
  return value;
}

std::optional<std::uint64_t> query_number(HKEY key, const wchar_t* name) {
  DWORD type = 0;
  std::uint64_t value = 0;
  DWORD size = sizeof value;
  if (RegQueryValueExW(key, name, nullptr, &type, reinterpret_cast<BYTE*>(&value), &size) != ERROR_SUCCESS) return std::nullopt;
  if (type == REG_DWORD) return value & 0xffffffffu;
  if (type == REG_QWORD || type == REG_BINARY) return value;
  return std::nullopt;
}

constexpr const wchar_t* kDisplayClass = L"SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";

}  // namespace

Result<std::vector<DxgiAdapter>> dxgi_adapters() {
  using CreateFactoryFn = HRESULT(WINAPI*)(REFIID, void**);
  HMODULE dxgi = LoadLibraryW(L"dxgi.dll");
  if (dxgi == nullptr) return fail(ErrorKind::environment, "dxgi.dll could not be loaded");
  auto create = reinterpret_cast<CreateFactoryFn>(reinterpret_cast<void*>(GetProcAddress(dxgi, "CreateDXGIFactory1")));
  if (create == nullptr) {
    FreeLibrary(dxgi);
    return fail(ErrorKind::environment, "dxgi.dll has no CreateDXGIFactory1");
  }
  IDXGIFactory1* factory = nullptr;
  if (FAILED(create(__uuidof(IDXGIFactory1), reinterpret_cast<void**>(&factory)))) {
    FreeLibrary(dxgi);
    return fail(ErrorKind::environment, "DXGI could not create a factory");
  }
  std::vector<DxgiAdapter> adapters;
  IDXGIAdapter1* adapter = nullptr;
  for (UINT i = 0; factory->EnumAdapters1(i, &adapter) != DXGI_ERROR_NOT_FOUND; ++i) {
    DXGI_ADAPTER_DESC1 desc{};
    if (SUCCEEDED(adapter->GetDesc1(&desc))) {
      DxgiAdapter a;
      a.description = narrow(desc.Description);
      a.vendor_id = desc.VendorId;
      a.device_id = desc.DeviceId;
      a.subsys_id = desc.SubSysId;
      a.revision = desc.Revision;
      a.dedicated_video_memory = desc.DedicatedVideoMemory;
      a.shared_system_memory = desc.SharedSystemMemory;
      a.luid = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(desc.AdapterLuid.HighPart)) << 32) | desc.AdapterLuid.LowPart;
      a.software = (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) != 0;
      LARGE_INTEGER umd{};
      if (SUCCEEDED(adapter->CheckInterfaceSupport(__uuidof(IDXGIDevice), &umd))) {
        auto v = static_cast<std::uint64_t>(umd.QuadPart);
        a.umd_version = fmt::format("{}.{}.{}.{}", v >> 48, (v >> 32) & 0xffff, (v >> 16) & 0xffff, v & 0xffff);
      }
      adapters.push_back(std::move(a));
    }
    adapter->Release();
  }
  factory->Release();
  FreeLibrary(dxgi);
  return adapters;
}

namespace {

constexpr const wchar_t* kUninstall = L"SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall";

// The entries of one Uninstall key; a key that cannot be opened has none.
void read_uninstall_key(HKEY root, REGSAM view, std::vector<InstalledProgram>& out) {
  HKEY uninstall = nullptr;
  if (RegOpenKeyExW(root, kUninstall, 0, KEY_READ | view, &uninstall) != ERROR_SUCCESS) return;
  wchar_t name[256];
  for (DWORD i = 0;; ++i) {
    DWORD len = 256;
    const LSTATUS status = RegEnumKeyExW(uninstall, i, name, &len, nullptr, nullptr, nullptr, nullptr);
    if (status == ERROR_MORE_DATA) continue;  // a name over 255 characters is no product's
    if (status != ERROR_SUCCESS) break;
    HKEY sub = nullptr;
    if (RegOpenKeyExW(uninstall, name, 0, KEY_READ | view, &sub) != ERROR_SUCCESS) continue;
    InstalledProgram program;
    program.display_name = narrow(query_string(sub, L"DisplayName").value_or(L""));
    program.display_version = narrow(query_string(sub, L"DisplayVersion").value_or(L""));
    program.publisher = narrow(query_string(sub, L"Publisher").value_or(L""));
    program.install_location = narrow(query_string(sub, L"InstallLocation").value_or(L""));
    RegCloseKey(sub);
    if (!program.display_name.empty()) out.push_back(std::move(program));
  }
  RegCloseKey(uninstall);
}

}  // namespace

Result<std::vector<InstalledProgram>> installed_programs() {
  std::vector<InstalledProgram> programs;
  read_uninstall_key(HKEY_LOCAL_MACHINE, KEY_WOW64_64KEY, programs);
  read_uninstall_key(HKEY_LOCAL_MACHINE, KEY_WOW64_32KEY, programs);
  read_uninstall_key(HKEY_CURRENT_USER, 0, programs);
  // On 32-bit Windows both views are one key: each entry once.
  std::vector<InstalledProgram> unique;
  for (auto& program : programs) {
    const bool seen = std::any_of(unique.begin(), unique.end(), [&](const InstalledProgram& p) {
      return p.display_name == program.display_name && p.display_version == program.display_version && p.publisher == program.publisher;
    });
    if (!seen) unique.push_back(std::move(program));
  }
  return unique;
}

Result<std::vector<DisplayDriverKey>> display_driver_keys() {
  HKEY cls = nullptr;
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, kDisplayClass, 0, KEY_READ, &cls) != ERROR_SUCCESS) {
    return fail(ErrorKind::environment, "The display adapter class key could not be opened");
  }
  std::vector<DisplayDriverKey> keys;
  wchar_t name[256];
  for (DWORD i = 0;; ++i) {
    DWORD len = 256;
    if (RegEnumKeyExW(cls, i, name, &len, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS) break;
    // Only the numbered instance keys (0000, 0001, ...); "Properties" and "Configuration" are not adapters.
    if (len != 4 || !iswdigit(name[0])) continue;
    HKEY sub = nullptr;
    if (RegOpenKeyExW(cls, name, 0, KEY_READ, &sub) != ERROR_SUCCESS) continue;
    DisplayDriverKey key;
    key.subkey = narrow(std::wstring_view(name, len));
    key.driver_desc = narrow(query_string(sub, L"DriverDesc").value_or(L""));
    key.driver_version = narrow(query_string(sub, L"DriverVersion").value_or(L""));
    key.radeon_software_version = narrow(query_string(sub, L"RadeonSoftwareVersion").value_or(L""));
    key.matching_device_id = narrow(query_string(sub, L"MatchingDeviceId").value_or(L""));
    key.memory_size = query_number(sub, L"HardwareInformation.qwMemorySize");
    RegCloseKey(sub);
    if (!key.driver_desc.empty()) keys.push_back(std::move(key));
  }
  RegCloseKey(cls);
  return keys;
}

namespace {

// Every string value of a key, REG_EXPAND_SZ ones expanded against this process's environment.
void read_variables(HKEY root, const wchar_t* path, VariableScope scope, std::map<std::string, RegisteredVariable>& out) {
  HKEY key = nullptr;
  if (RegOpenKeyExW(root, path, 0, KEY_READ, &key) != ERROR_SUCCESS) return;
  std::vector<wchar_t> name(16384);
  for (DWORD i = 0;; ++i) {
    DWORD name_length = static_cast<DWORD>(name.size());
    DWORD type = 0;
    if (RegEnumValueW(key, i, name.data(), &name_length, nullptr, &type, nullptr, nullptr) != ERROR_SUCCESS) break;
    if (type != REG_SZ && type != REG_EXPAND_SZ) continue;
    const std::wstring value_name(name.data(), name_length);
    auto text = query_string(key, value_name.c_str());
    if (!text) continue;
    if (type == REG_EXPAND_SZ) {
      const DWORD needed = ExpandEnvironmentStringsW(text->c_str(), nullptr, 0);
      std::wstring expanded(needed, L'\0');
      if (needed > 0 && ExpandEnvironmentStringsW(text->c_str(), expanded.data(), needed) == needed) {
        expanded.resize(needed - 1);
        text = std::move(expanded);
      }
    }
    // The user's variables come second and win, as Windows builds a new program's environment;
    // names are case-insensitive there, so a user's "Hip_Path" replaces the machine's "HIP_PATH".
    const std::string utf8_name = narrow(value_name);
    std::erase_if(out, [&](const auto& entry) {
      const std::wstring known = widen(entry.first);
      return CompareStringOrdinal(known.c_str(), static_cast<int>(known.size()), value_name.c_str(), static_cast<int>(value_name.size()), TRUE) ==
             CSTR_EQUAL;
    });
    out[utf8_name] = RegisteredVariable{narrow(*text), scope};
  }
  RegCloseKey(key);
}

}  // namespace

Result<std::map<std::string, RegisteredVariable>> registered_environment() {
  std::map<std::string, RegisteredVariable> variables;
  read_variables(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment", VariableScope::machine, variables);
  read_variables(HKEY_CURRENT_USER, L"Environment", VariableScope::user, variables);
  return variables;
}

Result<std::string> read_hklm_string(const std::string& key, const std::string& value) {
  HKEY handle = nullptr;
  std::wstring wkey = widen(key);
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, wkey.c_str(), 0, KEY_READ, &handle) != ERROR_SUCCESS) {
    return fail(ErrorKind::not_found, fmt::format("Registry key HKLM\\{} does not exist", key));
  }
  auto text = query_string(handle, widen(value).c_str());
  RegCloseKey(handle);
  if (!text) return fail(ErrorKind::not_found, fmt::format("Registry value HKLM\\{}\\{} does not exist", key, value));
  return narrow(*text);
}

Result<std::string> file_version(const std::filesystem::path& file) {
  DWORD ignored = 0;
  DWORD size = GetFileVersionInfoSizeW(file.c_str(), &ignored);
  if (size == 0) return fail(ErrorKind::not_found, fmt::format("{} has no version resource", path_to_utf8(file)));
  std::string data(size, '\0');
  if (!GetFileVersionInfoW(file.c_str(), 0, size, data.data())) {
    return fail(ErrorKind::io, fmt::format("The version resource of {} could not be read", path_to_utf8(file)));
  }
  VS_FIXEDFILEINFO* info = nullptr;
  UINT len = 0;
  if (!VerQueryValueW(data.data(), L"\\", reinterpret_cast<void**>(&info), &len) || info == nullptr) {
    return fail(ErrorKind::invalid_input, fmt::format("{} has an unreadable version resource", path_to_utf8(file)));
  }
  return fmt::format("{}.{}.{}.{}", HIWORD(info->dwFileVersionMS), LOWORD(info->dwFileVersionMS), HIWORD(info->dwFileVersionLS),
                     LOWORD(info->dwFileVersionLS));
}

Result<std::filesystem::path> system_directory() {
  wchar_t buffer[MAX_PATH];
  UINT n = GetSystemDirectoryW(buffer, MAX_PATH);
  if (n == 0 || n >= MAX_PATH) return fail(ErrorKind::environment, "Windows did not report its System32 folder");
  return std::filesystem::path(std::wstring(buffer, n));
}

bool process_is_elevated() {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return false;
  TOKEN_ELEVATION elevation{};
  DWORD size = 0;
  const bool elevated = GetTokenInformation(token, TokenElevation, &elevation, sizeof elevation, &size) && elevation.TokenIsElevated != 0;
  CloseHandle(token);
  return elevated;
}

}  // namespace zcuda::platform::windows
