// detect_machine against captured trees shaped like real machines (tests/fixtures/detect).
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/detect/detect.hpp>

#include "detect_test_util.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::detect {
namespace {

using testing::finding;

Profile detect_fixture(const std::string& name, platform::Environment env = {}) {
  Options options;
  options.root = std::filesystem::path(ZCUDA_FIXTURES_DIR) / "detect" / name;
  options.environment = std::move(env);
  return testing::detect_with(options);
}

std::vector<std::string> error_codes(const Profile& p) {
  std::vector<std::string> codes;
  for (const auto& f : p.findings) {
    if (f.severity == Severity::error) codes.push_back(f.code);
  }
  return codes;
}

TEST(DetectFixture, Rx9060XtOnRocm64IsReadyAndValidated) {
  Profile p = detect_fixture("rx9060xt-rocm64");
  ASSERT_EQ(p.gpus.size(), 1u);
  const Gpu& g = p.gpus[0];
  EXPECT_EQ(g.name, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(g.name_source, Source::zcuda_table) << "the fixture's amdgpu.ids predates the card";
  EXPECT_EQ(g.gfx, "gfx1200");
  EXPECT_EQ(g.gfx_source, Source::kfd);
  EXPECT_EQ(g.vendor_id, 0x1002u);
  EXPECT_EQ(g.device_id, 0x7590u);
  EXPECT_EQ(g.revision.value(), 0xC0u);
  EXPECT_EQ(g.vram_bytes.value(), 16ull << 30);
  EXPECT_FALSE(g.integrated);
  EXPECT_EQ(g.pci_address, "0000:03:00.0");
  EXPECT_EQ(g.render_node, "/dev/dri/renderD128");
  EXPECT_EQ(g.kfd_node.value(), 1);
  EXPECT_EQ(g.hip_index.value(), 0);
  EXPECT_EQ(g.status, GpuSupport::validated);
  EXPECT_EQ(g.seen_by, (std::vector<std::string>{"pci", "drm", "kfd"}));
  EXPECT_TRUE(p.driver.module_loaded);
  EXPECT_EQ(p.driver.initstate, "live");
  const HipInstall* hip = p.selected_hip();
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->version, "6.4.0-47");
  EXPECT_EQ(hip->root, "/opt/rocm");
  EXPECT_TRUE(hip->kernels.at("gfx1200").rocblas);
  EXPECT_TRUE(hip->kernels.at("gfx1200").hipblaslt);
  EXPECT_EQ(p.hip_installs.size(), 1u) << "/opt/rocm and /opt/rocm-6.4.0 are the same install";
  EXPECT_TRUE(hip->missing_zluda_names.empty()) << ::testing::PrintToString(hip->missing_zluda_names);
  EXPECT_FALSE(p.hip_runtime.probed) << "--root never loads libraries";
  EXPECT_TRUE(p.ready()) << ::testing::PrintToString(error_codes(p));
}

// Linux ZLUDA links libamdhip64.so, librocblas.so, ... (unversioned, vosen/ZLUDA
// xtask/src/main.rs): ROCm's runtime files alone (libamdhip64.so.6) do not make a machine ready.
TEST(DetectFixture, RuntimeOnlyRocmLacksTheNamesZludaLoads) {
  Profile p = detect_fixture("rocm-runtime-only");
  const HipInstall* hip = p.selected_hip();
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->missing_zluda_names,
            (std::vector<std::string>{"libamdhip64.so", "librocblas.so", "libhipblaslt.so", "librocsparse.so", "librocm_smi64.so"}));
  const Finding* f = finding(p, "zluda-library-names-missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("libamdhip64.so, librocblas.so"), std::string::npos) << f->message;
  EXPECT_FALSE(p.ready());
  EXPECT_FALSE(p.ready_for_physx32()) << "PhysX through ZLUDA is Windows-only";
}

TEST(DetectFixture, IntegratedGpuFirstNamesTheDiscreteIndex) {
  Profile p = detect_fixture("igpu-plus-rx7900xtx");
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_TRUE(p.gpus[0].integrated);
  EXPECT_EQ(p.gpus[0].gfx, "gfx1036");
  EXPECT_EQ(p.gpus[0].status, GpuSupport::candidate) << "integrated RDNA2: supported upstream";
  EXPECT_EQ(p.gpus[1].name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(p.gpus[1].gfx, "gfx1100");
  EXPECT_FALSE(p.gpus[1].integrated);
  EXPECT_EQ(p.gpus[1].hip_index.value(), 1);
  const Finding* f = finding(p, "igpu-enumerated-first");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->hint.find("HIP_VISIBLE_DEVICES=1"), std::string::npos) << f->hint;
  EXPECT_NE(f->hint.find("ROCR_VISIBLE_DEVICES=1"), std::string::npos) << f->hint;
  // The iGPU's missing kernels do not block the discrete GPU.
  const Finding* k = finding(p, "rocblas-kernels-missing");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->severity, Severity::warning);
  EXPECT_TRUE(p.ready());
}

TEST(DetectFixture, MissingKernelsAndOldRocmAreErrors) {
  Profile p = detect_fixture("kernels-missing-rx9070xt");
  ASSERT_EQ(p.gpus.size(), 1u);
  EXPECT_EQ(p.gpus[0].name, "AMD Radeon RX 9070 XT");
  EXPECT_EQ(p.gpus[0].gfx, "gfx1201");
  EXPECT_EQ(p.gpus[0].status, GpuSupport::candidate);
  const Finding* k = finding(p, "rocblas-kernels-missing");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->severity, Severity::error);
  EXPECT_NE(k->message.find("gfx1201"), std::string::npos);
  EXPECT_NE(k->message.find("gfx1100"), std::string::npos) << "names the archs it does have";
  ASSERT_NE(finding(p, "hip-sdk-too-old"), nullptr);
  ASSERT_NE(finding(p, "no-miopen"), nullptr);
  EXPECT_FALSE(p.ready());
}

TEST(DetectFixture, NvidiaOnlyMachine) {
  Profile p = detect_fixture("nvidia-only");
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_TRUE(p.cuda.nvidia_gpu);
  auto nvidia = std::find_if(p.gpus.begin(), p.gpus.end(), [](const Gpu& g) { return g.vendor_id == 0x10de; });
  ASSERT_NE(nvidia, p.gpus.end());
  EXPECT_EQ(nvidia->name, "NVIDIA Corporation AD102 [GeForce RTX 4090]");
  EXPECT_EQ(nvidia->status, GpuSupport::not_amd);
  ASSERT_NE(finding(p, "nvidia-gpu-present"), nullptr);
  ASSERT_NE(finding(p, "no-amd-gpu"), nullptr);
  const Finding* shadow = finding(p, "cuda-may-shadow-zluda");
  ASSERT_NE(shadow, nullptr);
  EXPECT_EQ(p.cuda.toolkits, std::vector<std::string>{"/usr/local/cuda-12.4"});
  EXPECT_FALSE(p.cuda.driver_stub_only);
  EXPECT_NE(std::find(p.cuda.shadowing.begin(), p.cuda.shadowing.end(), "/usr/local/cuda-12.4/lib64/libcublas.so.12"), p.cuda.shadowing.end());
}

TEST(DetectFixture, EmptyMachine) {
  Profile p = detect_fixture("empty");
  EXPECT_TRUE(p.gpus.empty());
  EXPECT_EQ(error_codes(p), std::vector<std::string>{"no-amd-gpu"});
  EXPECT_TRUE(p.hip_installs.empty());
}

TEST(DetectFixture, UnreadableKfdPropertiesAreReported) {
  Profile p = detect_fixture("kfd-unreadable");
  const Finding* f = finding(p, "kfd-properties-unreadable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  // The GPU is still listed from PCI/DRM, its gfx from zcuda's table.
  ASSERT_EQ(p.gpus.size(), 1u);
  EXPECT_EQ(p.gpus[0].gfx, "gfx1200");
  EXPECT_EQ(p.gpus[0].gfx_source, Source::zcuda_table);
  EXPECT_FALSE(p.ready());
}

TEST(DetectFixture, DriverNotLoaded) {
  Profile p = detect_fixture("amdgpu-not-loaded");
  ASSERT_NE(finding(p, "amdgpu-not-loaded"), nullptr);
  ASSERT_NE(finding(p, "no-hip-sdk"), nullptr);
}

TEST(DetectFixture, RocmPathEnvironmentIsHonoured) {
  Profile p = detect_fixture("rx9060xt-rocm64", {{"ROCM_PATH", "/opt/rocm-6.4.0"}});
  const HipInstall* hip = p.selected_hip();
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->found_via, "ROCM_PATH");
}

TEST(DetectFixture, JsonShape) {
  Profile p = detect_fixture("rx9060xt-rocm64");
  nlohmann::json j = p;
  ASSERT_TRUE(j["gpus"].is_array());
  const auto& g = j["gpus"][0];
  for (const char* key : {"name", "vendor_id", "device_id", "revision", "gfx", "integrated", "vram_bytes", "status", "seen_by"}) {
    EXPECT_TRUE(g.contains(key)) << key;
  }
  EXPECT_TRUE(g["vendor_id"].is_number_integer());
  EXPECT_EQ(g["device_id"].get<int>(), 0x7590);
  EXPECT_TRUE(j["driver"].is_object());
  for (const char* key : {"root", "version", "libraries"}) EXPECT_TRUE(j["hip"].contains(key)) << key;
  for (const auto& f : j["findings"]) {
    for (const char* key : {"severity", "code", "message", "hint"}) EXPECT_TRUE(f.contains(key)) << key;
  }
}

TEST(DetectFixture, MissingRootIsAnError) {
  Options options;
  options.root = "/nonexistent/zcuda-root";
  auto p = detect_machine(options);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::not_found);
}

}  // namespace
}  // namespace zcuda::detect
