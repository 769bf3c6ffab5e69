// Windows detection on a live Windows system (or Wine): HIP SDK folders found through the
// environment, the registry and Program Files, side by side; the display class registry key;
// CUDA libraries on PATH. HIP SDK folders are made in a temporary folder; the registry is a
// scratch copy (support/registry_scratch.hpp).
#include <algorithm>

#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/windows_system.hpp>

#include "detect_test_util.hpp"
#include "support/environment.hpp"
#include "support/registry_scratch.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::detect {
namespace {

namespace fs = std::filesystem;
using test::RegistryScratch;

const wchar_t* kMachineEnvironment = L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment";
const wchar_t* kDisplayClass = L"SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";

// A HIP SDK folder as the installer lays it out: the math libraries and their kernels in bin\.
fs::path make_hip_sdk(const fs::path& root, bool with_kernels = true) {
  for (const char* dll : {"rocblas.dll", "rocsparse.dll", "hipblaslt.dll", "hipfft.dll", "amdhip64_6.dll"}) {
    test::write_file(root / "bin" / dll, "MZ not really a DLL");
  }
  if (with_kernels) test::write_file(root / "bin" / "rocblas" / "library" / "TensileLibrary_lazy_gfx1200.dat", "kernels");
  return root;
}

using testing::finding;

Profile detect_live(platform::Environment env) {
  Options options;
  options.probe_hip_runtime = false;  // no AMD driver here; the fake DLLs must not be loaded
  options.environment = std::move(env);
  return testing::detect_with(options);
}

std::vector<std::pair<std::string, std::string>> installs(const Profile& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& i : p.hip_installs) out.emplace_back(i.version, i.found_via);
  return out;
}

// An RX 9060 XT (gfx1200) as its driver describes it in the display class key.
void add_radeon(const std::wstring& subkey = L"0000") {
  const std::wstring amd = std::wstring(kDisplayClass) + L"\\" + subkey;
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, amd, L"DriverDesc", L"AMD Radeon RX 9060 XT");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, amd, L"DriverVersion", L"32.0.21001.9024");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, amd, L"RadeonSoftwareVersion", L"25.5.1");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, amd, L"MatchingDeviceId", L"pci\\ven_1002&dev_7590");
  RegistryScratch::set_qword(HKEY_LOCAL_MACHINE, amd, L"HardwareInformation.qwMemorySize", 16ull << 30);
}

// Every test runs with a registry of its own that holds one Radeon, so the machine's own HIP SDK
// and GPUs cannot interfere. (Under Wine, DXGI lists no adapter: the registry is what names it.)
class DetectWindows : public ::testing::Test {
 protected:
  void SetUp() override { add_radeon(); }
  RegistryScratch registry;
  test::TempDir tmp;
  fs::path program_files = tmp / "Program Files";
};

TEST_F(DetectWindows, HipPathAsTheInstallerWritesItWithATrailingBackslash) {
  const fs::path sdk = make_hip_sdk(program_files / "AMD" / "ROCm" / "6.4");
  auto p = detect_live({{"HIP_PATH", path_to_utf8(sdk) + "\\"}, {"ProgramFiles", path_to_utf8(tmp / "elsewhere")}});
  ASSERT_EQ(p.os, platform::Os::windows);
  ASSERT_EQ(p.hip_installs.size(), 1u);
  const HipInstall& hip = p.hip_installs[0];
  EXPECT_EQ(hip.found_via, "HIP_PATH");
  EXPECT_EQ(hip.version, "6.4");
  EXPECT_EQ(hip.version_source, "folder name");
  for (const auto& library : hip.libraries) {
    if (library.component == "rocblas" || library.component == "hip-runtime" || library.component == "hipblaslt") {
      EXPECT_TRUE(library.found) << library.component;
    }
    if (library.component == "miopen") {
      EXPECT_FALSE(library.found);  // the Windows HIP SDK has none
    }
  }
  EXPECT_EQ(hip.rocblas_archs, std::vector<std::string>{"gfx1200"});
  EXPECT_NE(finding(p, "no-miopen"), nullptr);
}

TEST_F(DetectWindows, SeveralSdksSideBySideNewestVariableFirst) {
  const fs::path rocm = program_files / "AMD" / "ROCm";
  for (const char* v : {"5.7", "6.1", "6.2", "6.4"}) make_hip_sdk(rocm / v);
  // The installer sets HIP_PATH to the last one installed and HIP_PATH_<ver> for each.
  auto p = detect_live({{"HIP_PATH", path_to_utf8(rocm / "6.2") + "\\"},
                        {"HIP_PATH_57", path_to_utf8(rocm / "5.7") + "\\"},
                        {"HIP_PATH_62", path_to_utf8(rocm / "6.2") + "\\"},
                        {"HIP_PATH_64", path_to_utf8(rocm / "6.4") + "\\"},
                        {"ProgramFiles", path_to_utf8(program_files)}});
  using Found = std::vector<std::pair<std::string, std::string>>;
  // Each folder once: HIP_PATH chooses, then the versioned variables, then what else is there.
  EXPECT_EQ(installs(p), (Found{{"6.2", "HIP_PATH"}, {"6.4", "HIP_PATH_64"}, {"5.7", "HIP_PATH_57"}, {"6.1", "ProgramFiles"}}));
  const Finding* several = finding(p, "several-hip-installs");
  ASSERT_NE(several, nullptr);
  EXPECT_NE(several->message.find("4 HIP SDK"), std::string::npos) << several->message;
  EXPECT_NE(several->hint.find("HIP_PATH"), std::string::npos);
}

TEST_F(DetectWindows, ProgramFilesAloneIsEnoughNewestFirst) {
  const fs::path rocm = program_files / "AMD" / "ROCm";
  for (const char* v : {"6.10", "6.2", "6.4"}) make_hip_sdk(rocm / v);
  fs::create_directories(rocm / "6.3");  // an uninstalled SDK's leftover folder: ignored
  auto p = detect_live({{"ProgramFiles", path_to_utf8(program_files)}});
  using Found = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(installs(p), (Found{{"6.10", "ProgramFiles"}, {"6.4", "ProgramFiles"}, {"6.2", "ProgramFiles"}}));
}

TEST_F(DetectWindows, NoSdkAnywhereSaysWhatToInstall) {
  auto p = detect_live({{"ProgramFiles", path_to_utf8(program_files)}});
  EXPECT_TRUE(p.hip_installs.empty());
  const Finding* missing = finding(p, "no-hip-sdk");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->severity, Severity::error);
  // Upstream's docs/src/hip_sdk.md: the latest official SDK, and TheRock's builds for machine learning.
  EXPECT_NE(missing->hint.find("latest AMD HIP SDK"), std::string::npos) << missing->hint;
  EXPECT_NE(missing->hint.find("TheRock"), std::string::npos) << missing->hint;
  EXPECT_EQ(missing->hint.find("6.4"), std::string::npos) << missing->hint;
}

// The HIP SDK was installed after this terminal was opened: the registry has HIP_PATH, this
// process's environment does not.
TEST_F(DetectWindows, HipPathOnlyInTheRegistryIsFoundAndExplained) {
  const fs::path sdk = make_hip_sdk(program_files / "AMD" / "ROCm" / "6.4");
  test::ScopedEnv root("ZCUDA_TEST_SDK_ROOT", path_to_utf8(program_files / "AMD" / "ROCm"));
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kMachineEnvironment, L"HIP_PATH_64", sdk.wstring() + L"\\");
  // REG_EXPAND_SZ, as installers often write folders.
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kMachineEnvironment, L"HIP_PATH", L"%ZCUDA_TEST_SDK_ROOT%\\6.4\\", REG_EXPAND_SZ);
  auto p = detect_live({{"ProgramFiles", path_to_utf8(tmp / "elsewhere")}});
  ASSERT_EQ(p.hip_installs.size(), 1u) << "HIP_PATH and HIP_PATH_64 name one folder";
  EXPECT_EQ(p.hip_installs[0].found_via, "HIP_PATH (machine environment)");
  EXPECT_EQ(p.hip_installs[0].version, "6.4");
  const Finding* stale = finding(p, "hip-path-not-in-this-terminal");
  ASSERT_NE(stale, nullptr);
  EXPECT_EQ(stale->severity, Severity::warning);
  EXPECT_NE(stale->hint.find("new terminal"), std::string::npos) << stale->hint;

  // With HIP_PATH in this process too, the registry adds nothing new and there is nothing to say.
  auto fresh = detect_live({{"HIP_PATH", path_to_utf8(sdk) + "\\"}, {"ProgramFiles", path_to_utf8(tmp / "elsewhere")}});
  ASSERT_EQ(fresh.hip_installs.size(), 1u);
  EXPECT_EQ(fresh.hip_installs[0].found_via, "HIP_PATH");
  EXPECT_EQ(finding(fresh, "hip-path-not-in-this-terminal"), nullptr);
}

TEST_F(DetectWindows, UserVariablesWinOverMachineOnes) {
  const fs::path rocm = program_files / "AMD" / "ROCm";
  make_hip_sdk(rocm / "6.2");
  make_hip_sdk(rocm / "6.4");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, kMachineEnvironment, L"HIP_PATH", (rocm / "6.2").wstring());
  RegistryScratch::set_string(HKEY_CURRENT_USER, L"Environment", L"HIP_PATH", (rocm / "6.4").wstring());
  auto variables = platform::windows::registered_environment();
  ASSERT_TRUE(variables) << variables.error().message;
  ASSERT_TRUE(variables->contains("HIP_PATH"));
  EXPECT_EQ(variables->at("HIP_PATH").scope, platform::windows::VariableScope::user);
  auto p = detect_live({{"ProgramFiles", path_to_utf8(tmp / "elsewhere")}});
  ASSERT_FALSE(p.hip_installs.empty());
  EXPECT_EQ(p.hip_installs[0].version, "6.4");
  EXPECT_EQ(p.hip_installs[0].found_via, "HIP_PATH (user environment)");

  // Windows matches the names case-insensitively: the user's spelling replaces the machine's.
  RegistryScratch::delete_value(HKEY_CURRENT_USER, L"Environment", L"HIP_PATH");
  RegistryScratch::set_string(HKEY_CURRENT_USER, L"Environment", L"Hip_Path", (rocm / "6.4").wstring());
  variables = platform::windows::registered_environment();
  ASSERT_TRUE(variables) << variables.error().message;
  EXPECT_FALSE(variables->contains("HIP_PATH"));
  ASSERT_TRUE(variables->contains("Hip_Path"));
  EXPECT_EQ(variables->at("Hip_Path").scope, platform::windows::VariableScope::user);
}

// HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-...}: one numbered subkey per display
// adapter, written by its driver; other subkeys ("Properties", "Configuration") are not adapters.
TEST_F(DetectWindows, DisplayClassKeyGivesDriverAndAdrenalinVersions) {
  // The fixture's Radeon is 0000.
  const std::wstring basic = std::wstring(kDisplayClass) + L"\\0001";
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, basic, L"DriverDesc", L"Microsoft Basic Display Adapter");
  RegistryScratch::set_string(HKEY_LOCAL_MACHINE, basic, L"DriverVersion", L"10.0.26100.1");
  RegistryScratch::create_key(HKEY_LOCAL_MACHINE, std::wstring(kDisplayClass) + L"\\Properties");
  RegistryScratch::create_key(HKEY_LOCAL_MACHINE, std::wstring(kDisplayClass) + L"\\0002");  // no driver: skipped

  auto keys = platform::windows::display_driver_keys();
  ASSERT_TRUE(keys) << keys.error().message;
  ASSERT_EQ(keys->size(), 2u);
  const auto& k = (*keys)[0];
  EXPECT_EQ(k.subkey, "0000");
  EXPECT_EQ(k.driver_desc, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(k.driver_version, "32.0.21001.9024");
  EXPECT_EQ(k.radeon_software_version, "25.5.1");
  EXPECT_EQ(k.matching_device_id, "pci\\ven_1002&dev_7590");
  EXPECT_EQ(k.memory_size, 16ull << 30);
  EXPECT_EQ((*keys)[1].driver_desc, "Microsoft Basic Display Adapter");
  EXPECT_FALSE((*keys)[1].memory_size);

  // Detection takes the driver from there whether or not DXGI lists the adapter.
  auto p = detect_live({{"ProgramFiles", path_to_utf8(program_files)}});
  if (std::none_of(p.gpus.begin(), p.gpus.end(), [](const Gpu& g) { return g.name_source == Source::dxgi; })) {
    // Without DXGI the key stands in for it: the Radeon, its memory, and its gfx from the tables.
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].name, "AMD Radeon RX 9060 XT");
    EXPECT_EQ(p.gpus[0].device_id, 0x7590u);
    EXPECT_EQ(p.gpus[0].gfx, "gfx1200");
    EXPECT_EQ(p.gpus[0].vram_bytes, 16ull << 30);
    EXPECT_FALSE(p.gpus[0].integrated);
    EXPECT_EQ(p.gpus[0].seen_by, std::vector<std::string>{"registry"});
  }
  EXPECT_TRUE(p.driver.module_loaded);
  EXPECT_EQ(p.driver.driver_desc, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(p.driver.version, "32.0.21001.9024");
  EXPECT_EQ(p.driver.adrenalin_version, "25.5.1");
}

TEST_F(DetectWindows, CudaLibrariesOnPathMayShadowZluda) {
  const fs::path toolkit = program_files / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v12.4";
  test::write_file(toolkit / "bin" / "cublas64_12.dll", "NVIDIA's cuBLAS");
  test::write_file(toolkit / "bin" / "cudart64_12.dll", "NVIDIA's runtime");
  auto p = detect_live({{"ProgramFiles", path_to_utf8(program_files)},
                        {"CUDA_PATH", path_to_utf8(toolkit)},
                        {"Path", path_to_utf8(tmp / "nothing") + ";" + path_to_utf8(toolkit / "bin")}});
  EXPECT_EQ(p.cuda.toolkits, std::vector<std::string>{toolkit.string()});
  ASSERT_EQ(p.cuda.shadowing.size(), 1u) << "cudart is not a library ZLUDA provides";
  EXPECT_EQ(p.cuda.shadowing[0], (toolkit / "bin" / "cublas64_12.dll").string());
  const Finding* shadow = finding(p, "cuda-may-shadow-zluda");
  ASSERT_NE(shadow, nullptr);
  EXPECT_NE(shadow->hint.find("CUDA_PATH"), std::string::npos) << shadow->hint;
}

}  // namespace
}  // namespace zcuda::detect
