// What a run takes from detection (launch::settings_from_profile), on the fixture machines.
#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>
#include <zcuda/launch/detected.hpp>
#include <zcuda/stage/catalogue.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::launch {
namespace {

detect::Profile fixture(const std::string& name) {
  detect::Options options;
  options.root = std::filesystem::path(ZCUDA_FIXTURES_DIR) / "detect" / name;
  return detect::detect_machine(options).value();
}

TEST(LaunchFromDetection, IntegratedFirstSelectsTheDiscreteGpu) {
  auto settings = settings_from_profile(fixture("igpu-plus-rx7900xtx"));
  EXPECT_EQ(settings.device.value_or("unset"), "1");
  EXPECT_EQ(settings.gfx.value_or("unset"), "gfx1100");
  EXPECT_EQ(settings.hip_root.value_or("unset"), "/opt/rocm");
}

TEST(LaunchFromDetection, SingleGpuNeedsNoSelection) {
  auto settings = settings_from_profile(fixture("rx9060xt-rocm64"));
  EXPECT_FALSE(settings.device);
  EXPECT_EQ(settings.gfx.value_or("unset"), "gfx1200");
}

TEST(LaunchFromDetection, UserSettingsWin) {
  launch::Options options;
  options.device = "0";
  options.gfx = "gfx1101";
  apply_detected(options, settings_from_profile(fixture("igpu-plus-rx7900xtx")));
  EXPECT_EQ(*options.device, "0");
  EXPECT_EQ(*options.gfx, "gfx1101");
  EXPECT_EQ(options.hip_path.value_or("unset"), "/opt/rocm");
}

TEST(LaunchFromDetection, MiopenComesFromTheSelectedInstall) {
  EXPECT_TRUE(stage::backends_from_detection(fixture("rx9060xt-rocm64")).miopen);
  auto missing = stage::backends_from_detection(fixture("kernels-missing-rx9070xt"));
  EXPECT_FALSE(missing.miopen);
  EXPECT_NE(missing.miopen_evidence.find("/opt/rocm"), std::string::npos);
  EXPECT_FALSE(stage::backends_from_detection(fixture("empty")).miopen);
}

}  // namespace
}  // namespace zcuda::launch
