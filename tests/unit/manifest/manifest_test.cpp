#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/manifest/embedded.hpp>
#include <zcuda/manifest/manifest.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::manifest {
namespace {

using nlohmann::json;

json valid_entry() {
  return {{"id", "zluda-test"},
          {"component", "zluda"},
          {"version", "v1"},
          {"os", "windows"},
          {"url", "https://example.invalid/zluda-windows-abc.zip"},
          {"mirrors", json::array()},
          {"sha256", std::string(64, 'A')},
          {"size", 1234},
          {"archive", "zip"},
          {"root", "zluda"},
          {"optional", false},
          {"license", "MIT"},
          {"expected_files", {"nvcuda.dll"}}};
}

json with_entries(std::vector<json> entries) { return {{"schema", 1}, {"artifacts", entries}}; }

std::string error_of(const json& doc) {
  auto r = parse(doc.dump(), "test.json");
  if (r) return "(accepted)";
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  return r.error().message;
}

TEST(Manifest, ValidEntryParsesAndNormalizesTheDigest) {
  auto r = parse(with_entries({valid_entry()}).dump(), "test.json");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->artifacts.size(), 1u);
  const auto& a = r->artifacts[0];
  EXPECT_EQ(a.sha256, std::string(64, 'a'));
  EXPECT_EQ(a.size, 1234u);
  EXPECT_EQ(a.archive, ArchiveKind::zip);
  EXPECT_EQ(a.root, "zluda");
  EXPECT_EQ(a.file_name, "zluda-windows-abc.zip");
  EXPECT_EQ(a.os, TargetOs::windows);
  EXPECT_FALSE(a.channel.has_value());
  EXPECT_EQ(a.entry["id"], "zluda-test");
}

TEST(Manifest, FileNameIsPercentDecodedFromTheUrl) {
  auto e = valid_entry();
  e["url"] = "https://download.example/libtorch-2.3.0%2Bcu118.zip?x=1";
  auto r = parse(with_entries({e}).dump(), "t");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->artifacts[0].file_name, "libtorch-2.3.0+cu118.zip");
}

TEST(Manifest, ErrorsNameTheJsonPath) {
  auto short_digest = valid_entry();
  short_digest["sha256"] = std::string(63, 'a');
  EXPECT_EQ(error_of(with_entries({valid_entry(), short_digest})), "artifacts[1].sha256: expected 64 hex digits, got 63");

  auto not_hex = valid_entry();
  not_hex["sha256"] = std::string(10, 'a') + "g" + std::string(53, 'a');
  EXPECT_EQ(error_of(with_entries({not_hex})), "artifacts[0].sha256: expected hex digits, found 'g' at position 11");

  auto bad_os = valid_entry();
  bad_os["os"] = "macos";
  EXPECT_EQ(error_of(with_entries({bad_os})), "artifacts[0].os: expected \"windows\", \"linux\" or \"any\", got \"macos\"");

  auto missing = valid_entry();
  missing.erase("license");
  EXPECT_EQ(error_of(with_entries({missing})), "artifacts[0]: missing required field \"license\"");

  auto typo = valid_entry();
  typo["sha265"] = "x";
  EXPECT_EQ(error_of(with_entries({typo})), "artifacts[0].sha265: unknown field (format 1 has no such field; a typo?)");

  auto bad_mirror = valid_entry();
  bad_mirror["mirrors"] = {"https://ok.invalid/a.zip", "ftp://old.invalid/a.zip"};
  EXPECT_EQ(error_of(with_entries({bad_mirror})),
            "artifacts[0].mirrors[1]: expected an https://, http:// or file:// URL, got \"ftp://old.invalid/a.zip\"");

  auto negative = valid_entry();
  negative["size"] = -5;
  EXPECT_EQ(error_of(with_entries({negative})), "artifacts[0].size: expected a positive whole number of bytes, got -5");

  auto escaping_root = valid_entry();
  escaping_root["root"] = "../zluda";
  EXPECT_EQ(error_of(with_entries({escaping_root})), "artifacts[0].root: \"../zluda\" is not a relative folder path inside the archive");

  auto bad_expected = valid_entry();
  bad_expected["expected_files"] = {"ok.dll", "C:\\x.dll"};
  EXPECT_EQ(error_of(with_entries({bad_expected})), "artifacts[0].expected_files[1]: \"C:\\x.dll\" is not a relative path with '/' separators");

  auto bad_channel = valid_entry();
  bad_channel["channel"] = "nightly";
  EXPECT_EQ(error_of(with_entries({bad_channel})), "artifacts[0].channel: expected \"stable\" or \"latest\", got \"nightly\"");

  auto bad_version = valid_entry();
  bad_version["version"] = "../v1";
  EXPECT_NE(error_of(with_entries({bad_version})).find("artifacts[0].version:"), std::string::npos);

  auto wrong_type = valid_entry();
  wrong_type["optional"] = "yes";
  EXPECT_EQ(error_of(with_entries({wrong_type})), "artifacts[0].optional: expected true or false, got string");
}

TEST(Manifest, DocumentLevelErrors) {
  EXPECT_EQ(error_of(json{{"artifacts", json::array({valid_entry()})}}), "schema: missing; format version 1 manifests start with \"schema\": 1");
  EXPECT_EQ(error_of(json{{"schema", 2}, {"artifacts", json::array({valid_entry()})}}), "schema: this zcuda reads format version 1, got 2");
  EXPECT_EQ(error_of(json{{"schema", 1}, {"artifacts", json::array()}}), "artifacts: is empty");
  auto r = parse("{\"schema\": 1,\n \"artifacts\": [,]}", "t");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "$: not valid JSON at line 2, column 16");
}

TEST(Manifest, ConflictingEntriesAreRefused) {
  auto a = valid_entry();
  auto same_id = valid_entry();
  same_id["os"] = "linux";
  EXPECT_EQ(error_of(with_entries({a, same_id})), "artifacts[1].id: \"zluda-test\" is already the id of artifacts[0]");

  auto same_folder = valid_entry();
  same_folder["id"] = "other";
  same_folder["os"] = "any";
  same_folder["sha256"] = std::string(64, 'b');
  EXPECT_NE(error_of(with_entries({a, same_folder})).find("artifacts[1].version: artifacts[0] installs zluda v1 from other bytes"),
            std::string::npos);
  // One release for two OSes (upstream's v6 for Windows and Linux): each machine installs its own.
  auto other_os = same_folder;
  other_os["os"] = "linux";
  EXPECT_EQ(error_of(with_entries({a, other_os})), "(accepted)");

  auto ambiguous = valid_entry();
  ambiguous["id"] = "other";
  ambiguous["version"] = "v2";
  EXPECT_NE(error_of(with_entries({a, ambiguous})).find("artifacts[1].channel:"), std::string::npos);

  ambiguous["channel"] = "latest";
  a["channel"] = "stable";
  EXPECT_EQ(error_of(with_entries({a, ambiguous})), "(accepted)");
}

TEST(Manifest, EmbeddedManifestIsThePinnedSet) {
  ASSERT_TRUE(embedded::find("artifacts.json").has_value());
  EXPECT_FALSE(embedded::find("nope.json").has_value());
  auto m = load_embedded();
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->artifacts.size(), 4u);
  const auto& stable = m->artifacts[0];
  // Upstream's v6 release (v6-preview.79): digest and size as public projects pinning it give them.
  EXPECT_EQ(stable.version, "v6");
  EXPECT_EQ(stable.url, "https://github.com/vosen/ZLUDA/releases/download/v6/zluda-windows-3fe1206.zip");
  EXPECT_EQ(stable.sha256, "fda8891c6fdfaba438f2eb0f9d749ffa2c1fddbdf225be2301f0d7a25e37208a");
  EXPECT_EQ(stable.size, 35506692u);
  EXPECT_EQ(stable.root, "zluda");
  const auto& latest = m->artifacts[1];
  EXPECT_EQ(latest.channel, Channel::latest);
  EXPECT_EQ(latest.url, "https://github.com/vosen/ZLUDA/releases/download/v7-preview.10/zluda-windows-9c8b43f.zip");
  EXPECT_EQ(latest.sha256, "a80cfa84217773a1ca0f6b7eb2ee1de9de8cfd654adcab052b1978b031ccb74b");
  EXPECT_FALSE(latest.size.has_value()) << "the publisher's size is not known; none may be invented";
  const auto& libtorch = m->artifacts[2];
  EXPECT_TRUE(libtorch.optional);
  EXPECT_EQ(libtorch.size, 2660890386u);
  EXPECT_EQ(libtorch.sha256, "e7d57ee5052996e1a9aaead5ecc3c491ba7c0db21316fb1fa8a4a8136005c6cc");
  // Upstream's v6 for Linux: deeplearning4j libnd4j/cmake/Dependencies.cmake @02e3fb79; no size is published.
  const auto& linux_stable = m->artifacts[3];
  EXPECT_EQ(linux_stable.os, TargetOs::linux);
  EXPECT_EQ(linux_stable.version, "v6");
  EXPECT_EQ(linux_stable.channel, Channel::stable);
  EXPECT_EQ(linux_stable.url, "https://github.com/vosen/ZLUDA/releases/download/v6/zluda-linux-3fe12063.tar.gz");
  EXPECT_EQ(linux_stable.sha256, "d9fd9893abaf3206c56d3eb25f0475c6327aa8de8e77f21be8a24f275556c3e1");
  EXPECT_FALSE(linux_stable.size.has_value()) << "no source publishes its size; none may be invented";
  EXPECT_EQ(linux_stable.archive, ArchiveKind::tar_gz);
  EXPECT_EQ(libtorch.root, "libtorch");
  EXPECT_EQ(libtorch.file_name, "libtorch-win-shared-with-deps-2.3.0+cu118.zip");
}

TEST(Manifest, LoadFileReportsAMissingFile) {
  test::TempDir dir;
  auto r = load_file(dir / "absent.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
}

}  // namespace
}  // namespace zcuda::manifest
