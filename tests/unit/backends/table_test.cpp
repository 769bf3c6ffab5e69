// manifests/backends.json: the embedded file validates, and the validation refuses rows that lack
// or misname their sources.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/backends/backends.hpp>
#include <zcuda/manifest/embedded.hpp>

namespace zcuda::backends {
namespace {

using nlohmann::json;

// The smallest table that validates: one source, one channel, the upstream setup, one arch.
json minimal() {
  return json::parse(R"({
    "schema": 1,
    "sources": {"therock": {"url": "https://github.com/ROCm/TheRock/blob/89553ce3746eda74ade42557470d25e37c91b6f0/SUPPORTED_GPUS.md", "what": "status table"},
                "zluda-faq": {"url": "https://github.com/vosen/ZLUDA/blob/8a7931be87d758835776f54ea2e33d30621c74ce/docs/src/faq.md", "what": "RDNA and newer"}},
    "hip_sdk_tables": {},
    "pytorch_channels": [{"id": "nightly", "os": ["windows", "linux"], "index_url": "https://rocm.nightlies.amd.com/whl-multi-arch/",
                          "packages": ["torch[device-{gfx}]"], "python": ["3.12"], "min_driver": null, "sources": ["therock"]}],
    "advice_channel": "nightly",
    "zluda_setups": {"upstream": {"family": "upstream", "sources": ["zluda-faq"]}},
    "archs": [{"gfx": "gfx1100", "cards": "RX 7900 XTX",
               "rocm_pytorch": {"windows": {"status": "release-ready", "extra": "device-gfx1100", "source": "therock"}, "linux": null},
               "native_pytorch_on_windows_by": [], "hip_sdk": {}, "zluda": {"upstream": true, "windows": []},
               "sources": ["therock", "zluda-faq"]}]
  })");
}

std::string refusal(const json& doc) {
  auto table = parse_table(doc.dump());
  EXPECT_FALSE(table) << "accepted: " << doc.dump();
  if (table) return {};
  EXPECT_EQ(table.error().kind, ErrorKind::invalid_input);
  return table.error().message;
}

TEST(BackendsTable, TheEmbeddedFileValidates) {
  auto table = embedded_table();
  ASSERT_TRUE(table) << table.error().message;
  const Table& t = **table;
  EXPECT_EQ(t.checked, "2026-12-06");
  // Every gfx that manifests/gpu-support.json and the issue name has a row.
  for (const char* gfx :
       {"gfx803",  "gfx900",  "gfx902",  "gfx90c",  "gfx906",  "gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034",
        "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201"}) {
    EXPECT_NE(t.find(gfx), nullptr) << gfx;
  }
  const json support = json::parse(*embedded::find("gpu-support.json"));
  for (const auto& a : support["archs"]) EXPECT_NE(t.find(a["gfx"].get<std::string>()), nullptr) << a["gfx"];
  for (const auto& [key, source] : t.sources) EXPECT_TRUE(source.url.starts_with("https://")) << key;
}

TEST(BackendsTable, ReadsWhatTheSourcesSay) {
  const Table& t = **embedded_table();
  const Arch* rdna4 = t.find("gfx1200");
  ASSERT_NE(rdna4, nullptr);
  EXPECT_EQ(rdna4->windows->status, RocmStatus::build_only) << "SUPPORTED_GPUS.md: Build Passing only on Windows";
  EXPECT_EQ(rdna4->linux->status, RocmStatus::release_ready);
  EXPECT_EQ(rdna4->windows->extra, "device-gfx1200");
  const Arch* navi21 = t.find("gfx1030");
  ASSERT_NE(navi21, nullptr);
  EXPECT_EQ(navi21->hip_sdk.at("6.4.2"), HipSdkSupport::sdk);
  EXPECT_EQ(navi21->hip_sdk.at("7.2"), HipSdkSupport::none) << "HIP SDK 7.2 drops gfx1030 (PRO W6800 row)";
  EXPECT_EQ(navi21->zluda_windows, std::vector<std::string>{"lshqqytiger-hip6.4.2"});
  const Arch* polaris = t.find("gfx803");
  ASSERT_NE(polaris, nullptr);
  EXPECT_FALSE(polaris->zluda_upstream);
  EXPECT_EQ(polaris->windows->status, RocmStatus::none);
  EXPECT_EQ(t.zluda_setups.at("lshqqytiger-hip5.7.1").hip_sdk, "5.7.1");
  const Channel* nightly = t.channel(t.advice_channel);
  ASSERT_NE(nightly, nullptr);
  EXPECT_EQ(nightly->index_url, "https://rocm.nightlies.amd.com/whl-multi-arch/");
  EXPECT_FALSE(nightly->min_driver.has_value()) << "no source names a minimum driver: unknown";
}

TEST(BackendsTable, TheMinimalTableValidates) {
  auto table = parse_table(minimal().dump());
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->archs.size(), 1u);
  EXPECT_FALSE(table->archs[0].linux.has_value()) << "null: unknown";
}

TEST(BackendsTable, ARowWithoutASourceIsRefused) {
  json doc = minimal();
  doc["archs"][0].erase("sources");
  EXPECT_EQ(refusal(doc), "archs[0]: \"sources\" must be a list");
  doc["archs"][0]["sources"] = json::array();
  EXPECT_EQ(refusal(doc), "archs[0]: \"sources\" is empty: every row names its sources");
}

TEST(BackendsTable, ARowMayOnlyNameSourcesThatExistAndThatItLists) {
  json doc = minimal();
  doc["archs"][0]["sources"] = {"therock", "zluda-faq", "a-blog"};
  EXPECT_EQ(refusal(doc), "archs[0]: names source \"a-blog\", which \"sources\" lacks");
  doc = minimal();
  doc["archs"][0]["sources"] = {"zluda-faq"};
  EXPECT_EQ(refusal(doc), "archs[0]: a field leans on source \"therock\", which the row's \"sources\" does not list");
  doc = minimal();
  doc["archs"][0]["rocm_pytorch"]["windows"].erase("source");
  EXPECT_EQ(refusal(doc), "archs[0].rocm_pytorch.windows: \"source\" must be a non-empty string");
}

TEST(BackendsTable, ChannelsAndSetupsNameTheirSourcesToo) {
  json doc = minimal();
  doc["pytorch_channels"][0]["sources"] = json::array();
  EXPECT_EQ(refusal(doc), "pytorch_channels[0]: \"sources\" is empty: every row names its sources");
  doc = minimal();
  doc["zluda_setups"]["upstream"]["sources"] = {"nowhere"};
  EXPECT_EQ(refusal(doc), "zluda_setups.upstream: names source \"nowhere\", which \"sources\" lacks");
}

TEST(BackendsTable, SourcesArePublicAddresses) {
  json doc = minimal();
  doc["sources"]["therock"]["url"] = "SUPPORTED_GPUS.md";
  EXPECT_EQ(refusal(doc), "sources.therock: \"url\" must be an https:// address, got \"SUPPORTED_GPUS.md\"");
}

TEST(BackendsTable, WordsAndFieldsAreChecked) {
  json doc = minimal();
  doc["archs"][0]["rocm_pytorch"]["windows"]["status"] = "ready";
  EXPECT_EQ(refusal(doc), "archs[0].rocm_pytorch.windows: \"status\" is \"ready\", not release-ready, preview, build-only or none");
  doc = minimal();
  doc["archs"][0]["rocm_pytorch"]["windows"]["extra"] = "device-gfx1101";
  EXPECT_EQ(refusal(doc), "archs[0].rocm_pytorch.windows: \"extra\" is \"device-gfx1101\", not device-gfx1100");
  doc = minimal();
  doc["archs"][0]["hip_sdk"]["7.2"] = "sdk";
  EXPECT_EQ(refusal(doc), "archs[0].hip_sdk.7.2: no such version in \"hip_sdk_tables\"");
  doc = minimal();
  doc["archs"][0]["cardz"] = "typo";
  EXPECT_EQ(refusal(doc), "archs[0]: unknown field \"cardz\"");
  doc = minimal();
  doc["archs"].push_back(doc["archs"][0]);
  EXPECT_EQ(refusal(doc), "archs[1]: gfx1100 appears twice");
  doc = minimal();
  doc["advice_channel"] = "stable";
  EXPECT_EQ(refusal(doc), "advice_channel: \"stable\" is not a channel with an index_url");
}

}  // namespace
}  // namespace zcuda::backends
