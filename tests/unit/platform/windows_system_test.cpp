// Windows only: what zcuda reads from Windows itself (the registry, version resources) and what
// it embeds in its executables (manifest), checked on a live Windows system or Wine.
#include <windows.h>

#include <algorithm>

#include <gtest/gtest.h>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/system_info.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/windows_system.hpp>

#include "support/registry_scratch.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::platform {
namespace {

using test::RegistryScratch;

const wchar_t* kCurrentVersion = L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";

// The resource of type `type` and id 1 in an executable, as text.
std::string resource_text(const std::filesystem::path& file, LPCWSTR type) {
  HMODULE module = LoadLibraryExW(file.c_str(), nullptr, LOAD_LIBRARY_AS_DATAFILE | LOAD_LIBRARY_AS_IMAGE_RESOURCE);
  if (module == nullptr) return {};
  std::string text;
  if (HRSRC found = FindResourceW(module, MAKEINTRESOURCEW(1), type)) {
    if (HGLOBAL loaded = LoadResource(module, found)) {
      text.assign(static_cast<const char*>(LockResource(loaded)), SizeofResource(module, found));
    }
  }
  FreeLibrary(module);
  return text;
}

TEST(WindowsSystem, Windows11IsToldApartFromWindows10ByItsBuild) {
  RegistryScratch registry;
  // Windows 11 still says "Windows 10" in ProductName.
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kCurrentVersion, L"ProductName", L"Windows 10 Pro");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kCurrentVersion, L"CurrentBuildNumber", L"26100");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kCurrentVersion, L"DisplayVersion", L"24H2");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", L"ProcessorNameString",
                              L"AMD Ryzen 7 7700X 8-Core Processor");
  const SystemInfo info = system_info();
  EXPECT_EQ(info.os_name, "Windows 11 Pro");
  EXPECT_EQ(info.os_version, "10.0.26100 (24H2)");
  EXPECT_EQ(info.cpu, "AMD Ryzen 7 7700X 8-Core Processor");
  EXPECT_EQ(info.architecture, "x86_64");
  ASSERT_TRUE(info.ram_bytes);
  EXPECT_GT(*info.ram_bytes, 0u);

  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kCurrentVersion, L"CurrentBuildNumber", L"19045");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kCurrentVersion, L"DisplayVersion", L"22H2");
  EXPECT_EQ(system_info().os_name, "Windows 10 Pro");
}

// Installers register under HKLM (either registry view) or, per user, under HKCU; an entry
// without a DisplayName is no program "Apps & features" lists.
TEST(WindowsSystem, InstalledProgramsComeFromTheUninstallKeys) {
  RegistryScratch registry;
  const std::wstring uninstall = L"SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\";
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, uninstall + L"{B8A5A1B2-0000-0000-0000-PHYSX}", L"DisplayName",
                              L"NVIDIA PhysX System Software 9.19.0218");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, uninstall + L"{B8A5A1B2-0000-0000-0000-PHYSX}", L"DisplayVersion", L"9.19.0218");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, uninstall + L"{B8A5A1B2-0000-0000-0000-PHYSX}", L"Publisher", L"NVIDIA Corporation");
  RegistryScratch::set_string(HKEY_CURRENT_USER, uninstall + L"PerUserTool", L"DisplayName", L"A per-user tool");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, uninstall + L"KB000000", L"ParentKeyName", L"OperatingSystem");
  auto programs = windows::installed_programs();
  ASSERT_TRUE(programs) << programs.error().message;
  std::vector<std::string> names;
  for (const auto& p : *programs) names.push_back(p.display_name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"A per-user tool", "NVIDIA PhysX System Software 9.19.0218"}));
  for (const auto& p : *programs) {
    if (p.display_name.starts_with("NVIDIA")) {
      EXPECT_EQ(p.display_version, "9.19.0218");
      EXPECT_EQ(p.publisher, "NVIDIA Corporation");
    }
  }
}

TEST(WindowsSystem, MissingRegistryValuesAreNotFound) {
  RegistryScratch registry;
  auto value = windows::read_hklm_string("SOFTWARE\\zcuda\\nothing", "here");
  ASSERT_FALSE(value);
  EXPECT_EQ(value.error().kind, ErrorKind::not_found);
  auto keys = windows::display_driver_keys();
  ASSERT_FALSE(keys);
  EXPECT_EQ(keys.error().kind, ErrorKind::environment);
}

TEST(WindowsSystem, ExpandableVariablesAreExpanded) {
  RegistryScratch registry;
  const std::wstring env = L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment";
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, env, L"ZCUDA_PLAIN", L"%NOT_EXPANDED%");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, env, L"ZCUDA_EXPANDED", L"%SystemRoot%\\zcuda", REG_EXPAND_SZ);
  RegistryScratch::set_string(HKEY_CURRENT_USER, L"Environment", L"ZCUDA_UNICODE", L"C:\\Usérs\\José");
  auto vars = windows::registered_environment();
  ASSERT_TRUE(vars);
  EXPECT_EQ(vars->at("ZCUDA_PLAIN").value, "%NOT_EXPANDED%");
  EXPECT_EQ(vars->at("ZCUDA_PLAIN").scope, windows::VariableScope::machine);
  EXPECT_EQ(vars->at("ZCUDA_EXPANDED").value, *platform::get_env("SystemRoot") + "\\zcuda");
  EXPECT_EQ(vars->at("ZCUDA_UNICODE").value, "C:\\Usérs\\José");
  EXPECT_EQ(vars->at("ZCUDA_UNICODE").scope, windows::VariableScope::user);
}

TEST(WindowsSystem, FileVersionOfZcudaItself) {
  auto version = windows::file_version(path_from_utf8(ZCUDA_BIN));
  ASSERT_TRUE(version) << version.error().message;
  EXPECT_EQ(*version, std::string(ZCUDA_TEST_VERSION) + ".0");
  auto none = windows::file_version(path_from_utf8(ZCUDA_TEST_CHILD));  // built without a version resource
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::not_found);
}

// The application manifest: long paths, UTF-8 as the active code page, no elevation. This test
// program carries the same manifest, so the code page it runs with shows that it takes effect.
TEST(WindowsSystem, ZcudaCarriesItsManifestAndItTakesEffect) {
  for (const char* exe : {ZCUDA_BIN, ZCUDA_TEST_PROBE}) {
    const std::string manifest = resource_text(path_from_utf8(exe), MAKEINTRESOURCEW(24));  // RT_MANIFEST
    ASSERT_FALSE(manifest.empty()) << exe;
    EXPECT_NE(manifest.find(">true</longPathAware>"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find(">UTF-8</activeCodePage>"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("level=\"asInvoker\""), std::string::npos) << manifest;
  }
  EXPECT_EQ(GetACP(), 65001u);
}

TEST(WindowsSystem, SystemDirectoryExists) {
  auto system = windows::system_directory();
  ASSERT_TRUE(system);
  EXPECT_TRUE(std::filesystem::exists(*system / "kernel32.dll"));
}

}  // namespace
}  // namespace zcuda::platform
