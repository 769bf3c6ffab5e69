#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/detect/profile.hpp>

#include "parsers.hpp"
#include "tables.hpp"

namespace zcuda::detect {
namespace {

TEST(KfdProperties, ParsesRealNode) {
  auto p = parse_kfd_properties("cpu_cores_count 0\nsimd_count 64\ngfx_target_version 120000\nvendor_id 4098\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->at("gfx_target_version"), 120000u);
  EXPECT_EQ(p->at("vendor_id"), 4098u);
}

TEST(KfdProperties, MalformedInputIsAnError) {
  for (const char* bad : {"", "simd_count\n", "simd_count abc\n", "simd_count -1\n", "simd_count 99999999999999999999999\n", "x 1 2\n"}) {
    auto p = parse_kfd_properties(bad);
    EXPECT_FALSE(p) << "accepted: " << bad;
    if (!p) {
      EXPECT_EQ(p.error().kind, ErrorKind::invalid_input);
    }
  }
}

TEST(GfxTarget, DecodesKernelEncoding) {
  EXPECT_EQ(gfx_from_target_version(120000).value(), "gfx1200");
  EXPECT_EQ(gfx_from_target_version(120001).value(), "gfx1201");
  EXPECT_EQ(gfx_from_target_version(110001).value(), "gfx1101");  // Navi 32: GC 11.0.3 reports 11.0.1
  EXPECT_EQ(gfx_from_target_version(90010).value(), "gfx90a");
  EXPECT_EQ(gfx_from_target_version(100306).value(), "gfx1036");
  EXPECT_EQ(gfx_from_target_version(0).value(), "");
  EXPECT_FALSE(gfx_from_target_version(120016));  // stepping above 0xf
  EXPECT_FALSE(gfx_from_target_version(121600));  // minor above 0xf
  EXPECT_FALSE(gfx_from_target_version(99));      // no major
}

TEST(AmdgpuIds, ParsesLibdrmFormat) {
  auto ids = parse_amdgpu_ids("# comment\n\n1.0.0\n7590,\tC0,\tAMD Radeon RX 9060 XT\n744C,\tC8,\t AMD Radeon RX 7900 XTX\n");
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(ids->version, "1.0.0");
  ASSERT_NE(ids->find(0x7590, 0xC0), nullptr);
  EXPECT_EQ(ids->find(0x7590, 0xC0)->name, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(ids->find(0x744C, 0xC8)->name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(ids->find(0x7590, 0xC7), nullptr);
}

TEST(AmdgpuIds, MalformedInputIsAnError) {
  for (const char* bad : {"", "# only comments\n", "1.0.0\n7590 C0 name\n", "1.0.0\nZZZZ,\tC0,\tname\n", "1.0.0\n7590,\tC0,\t\n",
                          "1.0.0\n7590,\t1FF,\tname\n", "7590,\tC0,\tname\n"}) {
    auto ids = parse_amdgpu_ids(bad);
    EXPECT_FALSE(ids) << "accepted: " << bad;
  }
}

TEST(Parsers, SurviveRandomBytes) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 300, '\0');
    for (auto& c : junk) c = static_cast<char>(rng() % 256);
    (void)parse_kfd_properties(junk);
    (void)parse_amdgpu_ids(junk);
    (void)parse_key_values(junk);
    (void)parse_hex_id(junk);
  }
  SUCCEED();
}

TEST(Parsers, HexIdsAndVersions) {
  EXPECT_EQ(parse_hex_id("0x7590\n").value(), 0x7590u);
  EXPECT_EQ(parse_hex_id("c0").value(), 0xc0u);
  EXPECT_FALSE(parse_hex_id("0x"));
  EXPECT_FALSE(parse_hex_id("0x123456789"));
  EXPECT_LT(compare_versions("6.2.4", "6.4"), 0);
  EXPECT_GT(compare_versions("6.10", "6.4"), 0);
  EXPECT_EQ(compare_versions("6.4", "6.4.0"), 0);
  EXPECT_GT(compare_versions("6.4.0-47", "6.4"), 0);
}

TEST(Tables, EmbeddedTablesAreValid) {
  ASSERT_TRUE(validate_embedded_tables());
  auto rx9060xt = lookup_amd_device(0x7590, 0xC0);
  ASSERT_TRUE(rx9060xt);
  EXPECT_EQ(rx9060xt->name, "AMD Radeon RX 9060 XT");
  EXPECT_EQ(rx9060xt->gfx, "gfx1200");
  EXPECT_EQ(lookup_amd_device(0x7550, 0xC3)->name, "AMD Radeon RX 9070");
  EXPECT_EQ(lookup_amd_device(0x7550, 0xC3)->gfx, "gfx1201");
  EXPECT_FALSE(lookup_amd_device(0x7550, 0x99)->exact);
  EXPECT_EQ(arch_support("gfx1200").status, GpuSupport::validated);
  EXPECT_EQ(arch_support("gfx1100").status, GpuSupport::candidate);
  // Upstream supports "RX 5000 series and newer (both desktop and integrated)" (docs/src/faq.md):
  // RDNA1, the RX 6700/6600 families and the integrated RDNA2/3 GPUs are candidates.
  for (const char* gfx : {"gfx1010", "gfx1011", "gfx1012", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1103"}) {
    EXPECT_EQ(arch_support(gfx).status, GpuSupport::candidate) << gfx;
    EXPECT_NE(arch_support(gfx).source.find("faq.md"), std::string::npos) << gfx;
  }
  // Polaris, Vega and CDNA are unsupported upstream, and the note says so.
  for (const char* gfx : {"gfx803", "gfx900", "gfx906", "gfx90c", "gfx90a", "gfx942"}) {
    EXPECT_EQ(arch_support(gfx).status, GpuSupport::unsupported) << gfx;
    EXPECT_NE(arch_support(gfx).note.find("not supported"), std::string::npos) << gfx;
  }
  EXPECT_TRUE(arch_support("gfx1250").note.empty()) << "an unlisted RDNA target is unknown, not unsupported upstream";
}

// detect --json's "status" words are fixed: scripts and `report merge` read them.
TEST(Tables, GpuSupportWordsRoundTrip) {
  for (auto support : {GpuSupport::validated, GpuSupport::candidate, GpuSupport::unsupported, GpuSupport::not_amd}) {
    EXPECT_EQ(gpu_support_from(to_string(support)), support) << to_string(support);
  }
  EXPECT_EQ(to_string(GpuSupport::not_amd), "not-amd");
  EXPECT_EQ(gpu_support_from("supported"), std::nullopt);
}

}  // namespace
}  // namespace zcuda::detect

namespace zcuda::detect {
namespace {

// Upstream runs 32-bit PhysX without the HIP SDK (docs/src/quick_start.md): a Windows machine
// whose only errors are the HIP SDK's is ready for PhysX, not for CUDA programs.
TEST(Readiness, WithoutTheHipSdkWindowsIsReadyForPhysxOnly) {
  Profile p;
  p.os = platform::Os::windows;
  Gpu radeon;
  radeon.vendor_id = kVendorAmd;
  p.gpus.push_back(radeon);
  p.findings.push_back({Severity::error, "no-hip-sdk", "No HIP SDK was found", "Install AMD's HIP SDK"});
  p.findings.push_back({Severity::warning, "no-miopen", "MIOpen is not installed", ""});
  EXPECT_FALSE(p.ready());
  EXPECT_TRUE(p.ready_for_physx32());
  const auto json = nlohmann::json(p);
  EXPECT_EQ(json["ready_for"]["physx32"], true);
  EXPECT_EQ(json["ready_for"]["cuda"], false);

  Profile unsupported = p;
  unsupported.findings.push_back({Severity::error, "gpu-unsupported", "Radeon RX 580 (gfx803) is not supported by ZLUDA", ""});
  EXPECT_FALSE(unsupported.ready_for_physx32()) << "PhysX needs a supported GPU too";
  Profile linux_machine = p;
  linux_machine.os = platform::Os::linux;
  EXPECT_FALSE(linux_machine.ready_for_physx32()) << "32-bit PhysX through ZLUDA is Windows-only";
  Profile no_amd = p;
  no_amd.gpus.clear();
  EXPECT_FALSE(no_amd.ready_for_physx32());
}

}  // namespace
}  // namespace zcuda::detect
