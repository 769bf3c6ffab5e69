// Upstream ZLUDA's modal "ZLUDA failed to load …" dialogs, predicted from detection: a HIP library
// neither beside ZLUDA nor in the selected HIP SDK opens one on Windows.
#include <gtest/gtest.h>

#include <zcuda/launch/load_dialogs.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::launch {
namespace {

detect::Profile windows_profile_with(std::vector<std::string> sdk_components) {
  detect::Profile p;
  p.os = platform::Os::windows;
  detect::HipInstall hip;
  hip.root = "C:\\Program Files\\AMD\\ROCm\\6.4\\";
  for (const char* component : {"hip-runtime", "rocblas", "hipblaslt", "rocsparse", "hipfft", "miopen"}) {
    const bool found = std::find(sdk_components.begin(), sdk_components.end(), component) != sdk_components.end();
    hip.libraries.push_back({component, found, found ? hip.root + "bin\\x.dll" : ""});
  }
  p.hip_installs.push_back(hip);
  return p;
}

std::vector<std::string> roles(const std::vector<LoadDialog>& dialogs) {
  std::vector<std::string> out;
  for (const auto& d : dialogs) out.push_back(d.cuda_role);
  return out;
}

TEST(LoadDialogs, PredictedForEachHipLibraryNeitherBesideZludaNorInTheSdk) {
  test::TempDir runtime;
  test::write_file(runtime / "libhipblaslt.dll", "MZ");  // ZLUDA tries libhipblaslt.dll after hipblaslt.dll
  const auto dialogs = predicted_load_dialogs(runtime.path(), windows_profile_with({"hip-runtime", "rocblas"}));
  EXPECT_EQ(roles(dialogs), (std::vector<std::string>{"cusparse", "cudnn"}));
  ASSERT_EQ(dialogs.size(), 2u);
  EXPECT_EQ(dialogs[0].title, "ZLUDA failed to load rocsparse.dll");
  EXPECT_EQ(dialogs[1].title, "ZLUDA failed to load MIOpen.dll");
  EXPECT_NE(describe(dialogs[1]).find("modal dialog \"ZLUDA failed to load MIOpen.dll\""), std::string::npos) << describe(dialogs[1]);
}

TEST(LoadDialogs, NoHipSdkPredictsAllFourAndLinuxNone) {
  test::TempDir runtime;
  detect::Profile no_sdk;
  no_sdk.os = platform::Os::windows;
  EXPECT_EQ(roles(predicted_load_dialogs(runtime.path(), no_sdk)), (std::vector<std::string>{"cublas", "cublaslt", "cusparse", "cudnn"}));
  detect::Profile linux_machine;
  linux_machine.os = platform::Os::linux;
  EXPECT_TRUE(predicted_load_dialogs(runtime.path(), linux_machine).empty()) << "the dialogs are Windows-only";
}

TEST(LoadDialogs, ChecksMapToTheirRole) {
  EXPECT_EQ(cuda_role_of_check("cublas.sgemm"), "cublas");
  EXPECT_EQ(cuda_role_of_check("cublaslt.matmul"), "cublaslt");
  EXPECT_EQ(cuda_role_of_check("cusparse.spmm_coo_row_major"), "cusparse");
  EXPECT_EQ(cuda_role_of_check("cudnn.conv_forward"), "cudnn");
  EXPECT_EQ(cuda_role_of_check("driver.kernel"), "");
  EXPECT_EQ(cuda_role_of_check("cufft.c2c"), "") << "cuFFT opens no such dialog";
}

}  // namespace
}  // namespace zcuda::launch
