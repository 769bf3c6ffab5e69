// detect on this very machine: no GPU, a CUDA toolkit with only a stub libcuda.so, and the real
// HIP runtime from Debian's libamdhip64-5, which must report "no device" cleanly.
#include <algorithm>

#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>
#include <zcuda/platform/dynamic_library.hpp>

namespace zcuda::detect {
namespace {

TEST(DetectRealMachine, RunsAndExplainsTheMachine) {
  Options options;
  options.environment = platform::current_environment();
  auto p = detect_machine(options);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->root, "/");
  EXPECT_FALSE(p->findings.empty());
  bool any_amd = std::any_of(p->gpus.begin(), p->gpus.end(), [](const Gpu& g) { return g.vendor_id == kVendorAmd; });
  if (!any_amd) {
    EXPECT_TRUE(std::any_of(p->findings.begin(), p->findings.end(), [](const Finding& f) { return f.code == "no-amd-gpu"; }));
  }
  EXPECT_TRUE(p->hip_runtime.probed);
}

TEST(DetectRealMachine, DebianHipRuntimeReportsNoDeviceCleanly) {
  if (!platform::DynamicLibrary::open("libamdhip64.so.5")) GTEST_SKIP() << "libamdhip64-5 is not installed (scripts/install-deps.sh installs it)";
  Options options;
  auto p = detect_machine(options);
  ASSERT_TRUE(p);
  const HipRuntime& hip = p->hip_runtime;
  ASSERT_TRUE(hip.loaded) << hip.error;
  EXPECT_NE(hip.path.find("libamdhip64.so"), std::string::npos);
  ASSERT_TRUE(hip.count_status);
  EXPECT_EQ(*hip.count_status, 100) << "hipErrorNoDevice";
  EXPECT_EQ(hip.device_count.value_or(-1), 0);
  EXPECT_TRUE(hip.devices.empty());
  ASSERT_TRUE(hip.runtime_version);
  EXPECT_EQ(*hip.runtime_version / 10000000, 5);
}

TEST(DetectRealMachine, CudaToolkitWithStubOnly) {
#ifdef _WIN32
  GTEST_SKIP() << "Linux's CUDA toolkit layout (lib/stubs/libcuda.so under /usr/local); Windows toolkits are covered by DetectWindows";
#endif
  if (!std::filesystem::exists("/usr/local/cuda-13.0/lib/stubs/libcuda.so")) GTEST_SKIP() << "no CUDA 13 toolkit here";
  Options options;
  options.probe_hip_runtime = false;
  auto p = detect_machine(options);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->cuda.nvidia_gpu);
  EXPECT_TRUE(p->cuda.driver_stub_only);
  EXPECT_FALSE(p->hip_runtime.probed);
  EXPECT_TRUE(std::any_of(p->findings.begin(), p->findings.end(), [](const Finding& f) { return f.code == "cuda-driver-stub-only"; }));
}

}  // namespace
}  // namespace zcuda::detect
