// The backends advice for the captured machines (tests/fixtures/detect, read as Linux) and, through
// advise_gfx, for the same GPUs on Windows: each gets what manifests/backends.json's sources support.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/backends/backends.hpp>
#include <zcuda/detect/detect.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::backends {
namespace {

using platform::Os;

const Table& table() {
  static const Table* t = [] {
    auto loaded = embedded_table();
    EXPECT_TRUE(loaded) << loaded.error().message;
    return loaded ? *loaded : nullptr;
  }();
  return *t;
}

std::vector<Advice> advise_fixture(const std::string& name) {
  detect::Options options;
  options.root = std::filesystem::path(ZCUDA_FIXTURES_DIR) / "detect" / name;
  auto profile = detect::detect_machine(options);
  EXPECT_TRUE(profile) << (profile ? "" : profile.error().message);
  return profile ? advise(*profile, table()) : std::vector<Advice>{};
}

bool has(const std::vector<std::string>& list, const std::string& item) { return std::find(list.begin(), list.end(), item) != list.end(); }

std::vector<std::string> setup_ids(const Advice& a) {
  std::vector<std::string> ids;
  for (const auto& z : a.zluda) ids.push_back(z.id);
  return ids;
}

const std::string kTheRockStatus = "https://github.com/ROCm/TheRock/blob/89553ce3746eda74ade42557470d25e37c91b6f0/SUPPORTED_GPUS.md";

TEST(BackendsAdvice, Rx9060XtOnLinuxGetsNativeRocm) {
  auto advices = advise_fixture("rx9060xt-rocm64");
  ASSERT_EQ(advices.size(), 1u);
  const Advice& a = advices[0];
  EXPECT_EQ(a.gpu, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(a.gfx, "gfx1200");
  EXPECT_EQ(a.os, Os::linux);
  EXPECT_EQ(a.pytorch, Backend::native_rocm);
  EXPECT_EQ(a.pytorch_basis, "release-ready");
  EXPECT_EQ(a.pytorch_install, (std::vector<std::string>{"--index-url", "https://rocm.nightlies.amd.com/whl-multi-arch/", "torch[device-gfx1200]",
                                                         "torchvision[device-gfx1200]", "torchaudio"}));
  EXPECT_EQ(a.python, (std::vector<std::string>{"3.10", "3.11", "3.12", "3.13", "3.14"}));
  EXPECT_EQ(a.cuda_only, Backend::zluda);
  EXPECT_EQ(setup_ids(a), std::vector<std::string>{"upstream"}) << "the lshqqytiger setups the sources describe are Windows ones";
  EXPECT_TRUE(has(a.sources, kTheRockStatus));
}

TEST(BackendsAdvice, Rx9060XtOnWindowsIsNativeAsTheApplicationsChooseThoughOnlyBuildPassing) {
  Advice a = advise_gfx("gfx1200", Os::windows, table());
  EXPECT_EQ(a.pytorch, Backend::native_rocm);
  EXPECT_EQ(a.pytorch_basis, "build-only");
  EXPECT_NE(a.pytorch_reason.find("SD.Next, StabilityMatrix and ComfyUI-Zluda's README"), std::string::npos) << a.pytorch_reason;
  EXPECT_NE(a.pytorch_reason.find("measure both"), std::string::npos) << a.pytorch_reason;
  EXPECT_EQ(setup_ids(a), (std::vector<std::string>{"upstream", "lshqqytiger-hip6.4.2"}));
  EXPECT_TRUE(has(a.sources, "https://github.com/vladmandic/sdnext/blob/058a7f0cf326f39c0135c6257d7b7e61073e51fd/modules/rocm.py"));
}

TEST(BackendsAdvice, Rx7900XtxAndTheRaphaelIGpuOnLinux) {
  auto advices = advise_fixture("igpu-plus-rx7900xtx");
  ASSERT_EQ(advices.size(), 2u);
  for (const auto& a : advices) {
    EXPECT_EQ(a.pytorch, Backend::native_rocm) << a.gfx;
    EXPECT_EQ(a.pytorch_basis, "release-ready") << a.gfx;
  }
  auto rx7900 = std::find_if(advices.begin(), advices.end(), [](const Advice& a) { return a.gfx == "gfx1100"; });
  ASSERT_NE(rx7900, advices.end());
  EXPECT_TRUE(has(rx7900->pytorch_install, "torch[device-gfx1100]"));
  Advice windows = advise_gfx("gfx1100", Os::windows, table());
  EXPECT_EQ(windows.pytorch, Backend::native_rocm);
  EXPECT_EQ(windows.pytorch_basis, "release-ready");
  EXPECT_EQ(setup_ids(windows), (std::vector<std::string>{"upstream", "lshqqytiger-hip6.4.2"}));
}

TEST(BackendsAdvice, Rx6800IsReleaseReadyAndZludaStaysBelowHipSdk72) {
  auto advices = advise_fixture("rx6800");
  ASSERT_EQ(advices.size(), 1u);
  EXPECT_EQ(advices[0].gpu, "AMD Radeon RX 6800");
  EXPECT_EQ(advices[0].gfx, "gfx1030");
  EXPECT_EQ(advices[0].pytorch, Backend::native_rocm);
  EXPECT_EQ(advices[0].pytorch_basis, "release-ready");
  Advice windows = advise_gfx("gfx1030", Os::windows, table());
  EXPECT_EQ(windows.pytorch, Backend::native_rocm);
  EXPECT_EQ(setup_ids(windows), (std::vector<std::string>{"upstream", "lshqqytiger-hip6.4.2"}));
  ASSERT_FALSE(windows.notes.empty());
  EXPECT_NE(windows.notes[0].find("HIP SDK 7.2 marks gfx1030 unsupported"), std::string::npos) << windows.notes[0];
  EXPECT_TRUE(has(windows.sources, "https://rocm.docs.amd.com/projects/install-on-windows/en/docs-7.2/reference/system-requirements.html"));
}

TEST(BackendsAdvice, Rx580HasNoPathOnLinuxAndLshqqytigerWithHip571OnWindows) {
  auto advices = advise_fixture("rx580");
  ASSERT_EQ(advices.size(), 1u);
  const Advice& a = advices[0];
  EXPECT_EQ(a.gpu, "AMD Radeon RX 580 Series");
  EXPECT_EQ(a.gfx, "gfx803");
  EXPECT_EQ(a.pytorch, Backend::none);
  EXPECT_EQ(a.cuda_only, Backend::none);
  EXPECT_NE(a.cuda_only_reason.find("RX 5000 (RDNA) and newer"), std::string::npos) << a.cuda_only_reason;
  Advice windows = advise_gfx("gfx803", Os::windows, table());
  EXPECT_EQ(windows.pytorch, Backend::zluda);
  EXPECT_EQ(windows.cuda_only, Backend::zluda);
  EXPECT_EQ(setup_ids(windows), std::vector<std::string>{"lshqqytiger-hip5.7.1"});
  EXPECT_TRUE(windows.pytorch_install.empty());
}

TEST(BackendsAdvice, VegaApuHasNoPathOnLinuxAndLshqqytigerWithHip571OnWindows) {
  auto advices = advise_fixture("vega-apu");
  ASSERT_EQ(advices.size(), 1u);
  const Advice& a = advices[0];
  EXPECT_EQ(a.gfx, "gfx902");
  EXPECT_EQ(a.pytorch, Backend::none);
  EXPECT_EQ(a.cuda_only, Backend::none);
  Advice windows = advise_gfx("gfx902", Os::windows, table());
  EXPECT_EQ(windows.pytorch, Backend::zluda);
  EXPECT_EQ(setup_ids(windows), std::vector<std::string>{"lshqqytiger-hip5.7.1"});
  // The Cezanne/Renoir Vega APUs: TheRock builds gfx90c but no PyTorch wheel.
  Advice cezanne = advise_gfx("gfx90c", Os::linux, table());
  EXPECT_EQ(cezanne.pytorch, Backend::none);
  EXPECT_NE(cezanne.pytorch_reason.find("build-only"), std::string::npos) << cezanne.pytorch_reason;
  EXPECT_EQ(advise_gfx("gfx90c", Os::windows, table()).pytorch, Backend::zluda);
}

TEST(BackendsAdvice, AnUnknownGfxSaysSo) {
  Advice a = advise_gfx("gfx1250", Os::windows, table());
  EXPECT_FALSE(a.known);
  EXPECT_EQ(a.pytorch_basis, "unknown");
  EXPECT_EQ(a.cuda_only, Backend::zluda);
  EXPECT_TRUE(a.sources.empty());
  EXPECT_EQ(advise_gfx("", Os::linux, table()).pytorch_basis, "unknown");
}

TEST(BackendsAdvice, NoAdviceForOtherVendors) { EXPECT_TRUE(advise_fixture("nvidia-only").empty()); }

TEST(BackendsAdvice, JsonForm) {
  nlohmann::json j = advise_gfx("gfx1030", Os::windows, table());
  EXPECT_EQ(j["gfx"], "gfx1030");
  EXPECT_EQ(j["os"], "windows");
  EXPECT_EQ(j["pytorch"]["backend"], "native-rocm");
  EXPECT_EQ(j["pytorch"]["pip_install"][2], "torch[device-gfx1030]");
  EXPECT_EQ(j["cuda_only"]["backend"], "zluda");
  EXPECT_EQ(j["cuda_only"]["zluda"][1]["hip_sdk"], "6.4.2");
  EXPECT_EQ(j["cuda_only"]["zluda"][0]["hip_sdk"], nullptr);
  EXPECT_TRUE(j["hip_index"].is_null());
  EXPECT_FALSE(j["sources"].empty());
}

}  // namespace
}  // namespace zcuda::backends
