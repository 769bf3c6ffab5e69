// The knowledge bundle's core: Ed25519, the index, the signature chain, freshness, the files,
// and the choice between an installed bundle and the compiled-in one.
#include <gtest/gtest.h>

#include <zcuda/manifest/bundle.hpp>
#include <zcuda/manifest/ed25519.hpp>
#include <zcuda/manifest/embedded.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/test_hooks.hpp>

#include "support/environment.hpp"
#include "support/knowledge_bundle.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::knowledge {
namespace {

using test::TestBundle;
using test::TestKeys;

TEST(Ed25519, SignsAndVerifiesAndRejectsAnyChange) {
  auto key = generate_key();
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->public_hex.size(), 64u);
  auto signature = sign(key->private_hex, "hello");
  ASSERT_TRUE(signature.has_value());
  EXPECT_TRUE(verify(key->public_hex, "hello", *signature));
  EXPECT_FALSE(verify(key->public_hex, "hellp", *signature));
  auto other = generate_key();
  EXPECT_FALSE(verify(other->public_hex, "hello", *signature));
  std::string flipped = *signature;
  flipped[0] = flipped[0] == '0' ? '1' : '0';
  EXPECT_FALSE(verify(key->public_hex, "hello", flipped));
  EXPECT_FALSE(verify("zz", "hello", *signature));
}

// RFC 8032 section 7.1, test 2: a known answer, so the OpenSSL calls are Ed25519 itself.
TEST(Ed25519, MatchesRfc8032TestVector) {
  const std::string secret = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
  const std::string expected =
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00";
  auto message = from_hex("72");
  auto signature = sign(secret, *message);
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(*signature, expected);
  EXPECT_TRUE(verify("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", *message, expected));
}

TEST(KnowledgeTime, RoundTripsOneSpellingOnly) {
  auto t = parse_time("2026-12-06T20:54:32Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(format_time(*t), "2026-12-06T20:54:32Z");
  EXPECT_FALSE(parse_time("2026-12-06 20:54:32Z").has_value());
  EXPECT_FALSE(parse_time("2026-02-30T00:00:00Z").has_value());
  EXPECT_FALSE(parse_time("2026-12-06T20:54:32+01:00").has_value());
}

TEST(KnowledgeIndex, VerifiesAChainFromATrustedRoot) {
  TestKeys keys;
  TestBundle bundle;
  bundle.version = 7;
  bundle.files["artifacts.json"] = "{}";
  const auto text = bundle.index_text();
  auto index = verify_index(text, test::sign_index(text, keys), {keys.root.public_hex});
  ASSERT_TRUE(index.has_value()) << index.error().message;
  EXPECT_EQ(index->version, 7u);
  ASSERT_NE(index->file("artifacts.json"), nullptr);
  EXPECT_EQ(index->file("artifacts.json")->size, 2u);
}

TEST(KnowledgeIndex, RefusesAnUnknownRoot) {
  TestKeys keys, strangers;
  TestBundle bundle;
  bundle.version = 7;
  const auto text = bundle.index_text();
  auto index = verify_index(text, test::sign_index(text, strangers), {keys.root.public_hex});
  ASSERT_FALSE(index.has_value());
  EXPECT_EQ(refusal_of(index.error()), Refusal::untrusted_key);
  EXPECT_FALSE(verify_index(text, test::sign_index(text, keys), {}).has_value());
}

TEST(KnowledgeIndex, RefusesAChangedIndexAndAForgedSigningKey) {
  TestKeys keys;
  TestBundle bundle;
  bundle.version = 7;
  const auto text = bundle.index_text();
  const auto signature = test::sign_index(text, keys);
  std::string changed = text;
  changed.replace(changed.find("\"version\": 7"), 12, "\"version\": 8");
  auto index = verify_index(changed, signature, {keys.root.public_hex});
  ASSERT_FALSE(index.has_value());
  EXPECT_EQ(refusal_of(index.error()), Refusal::bad_signature);
  // A signing key the root never vouched for, under the root's name.
  TestKeys forged = keys;
  forged.signing = *generate_key();
  auto parsed = parse_signature(test::sign_index(text, forged));
  parsed->root_signature = parse_signature(signature)->root_signature;
  index = verify_index(text, signature_to_json(*parsed), {keys.root.public_hex});
  ASSERT_FALSE(index.has_value());
  EXPECT_EQ(refusal_of(index.error()), Refusal::bad_signature);
}

TEST(KnowledgeIndex, RefusesABundleForANewerZcuda) {
  TestKeys keys;
  TestBundle bundle;
  bundle.version = 7;
  bundle.min_zcuda = "999.0";
  const auto text = bundle.index_text();
  auto index = verify_index(text, test::sign_index(text, keys), {keys.root.public_hex});
  ASSERT_FALSE(index.has_value());
  EXPECT_EQ(index.error().kind, ErrorKind::unsupported);
}

TEST(KnowledgeIndex, RefusesUnsafeNamesAndBadDigests) {
  EXPECT_FALSE(parse_index(R"({"schema":1,"version":1,"published":"2026-01-01T00:00:00Z","expires":"2026-02-01T00:00:00Z","min_zcuda":"0.1",
    "files":[{"name":"../x","size":1,"sha256":"0000000000000000000000000000000000000000000000000000000000000000"}]})")
                   .has_value());
  EXPECT_FALSE(parse_index(R"({"schema":1,"version":1,"published":"2026-01-01T00:00:00Z","expires":"2026-02-01T00:00:00Z","min_zcuda":"0.1",
    "files":[{"name":"a.json","size":1,"sha256":"00"}]})")
                   .has_value());
}

TEST(KnowledgeFreshness, SaysHowLongAgoTheIndexExpired) {
  TestKeys keys;
  TestBundle bundle;
  bundle.version = 7;
  bundle.published = now() - std::chrono::days(20);
  bundle.expires = now() - std::chrono::days(3) - std::chrono::hours(1);
  const auto text = bundle.index_text();
  const auto signature = test::sign_index(text, keys);
  auto index = verify_index(text, signature, {keys.root.public_hex});
  ASSERT_TRUE(index.has_value());
  auto fresh = check_fresh(*index, signature, now());
  ASSERT_FALSE(fresh.has_value());
  EXPECT_EQ(refusal_of(fresh.error()), Refusal::expired);
  EXPECT_NE(fresh.error().message.find("3 days ago"), std::string::npos) << fresh.error().message;
  EXPECT_TRUE(check_fresh(*index, signature, now() - std::chrono::days(10)).has_value());
}

TEST(KnowledgeFreshness, RefusesAnExpiredSigningKey) {
  TestKeys keys;
  keys.signing_expires = now() - std::chrono::days(1);
  TestBundle bundle;
  bundle.version = 7;
  const auto text = bundle.index_text();
  const auto signature = test::sign_index(text, keys);
  auto index = verify_index(text, signature, {keys.root.public_hex});
  ASSERT_TRUE(index.has_value());
  auto fresh = check_fresh(*index, signature, now());
  ASSERT_FALSE(fresh.has_value());
  EXPECT_EQ(refusal_of(fresh.error()), Refusal::expired);
}

TEST(KnowledgeFiles, RefusesAnotherSizeOrDigest) {
  TestBundle bundle;
  bundle.files["a.json"] = "abc";
  auto index = parse_index(bundle.index_text());
  ASSERT_TRUE(index.has_value());
  const auto& entry = *index->file("a.json");
  EXPECT_TRUE(check_file(entry, "abc").has_value());
  EXPECT_EQ(refusal_of(check_file(entry, "abcd").error()), Refusal::mismatch);
  EXPECT_EQ(refusal_of(check_file(entry, "abd").error()), Refusal::mismatch);
}

TEST(CompiledInBundle, IndexesEveryKnowledgeFileOfTheBuild) {
  const Bundle built = compiled_in();
  EXPECT_EQ(built.index.version, compiled_in_version());
  EXPECT_TRUE(built.compiled_in);
  std::size_t checked = 0;
  for (const auto& file : embedded::files()) {
    if (file.name == kIndexName || file.name == kSignatureName) continue;
    const auto* entry = built.index.file(file.name);
    ASSERT_NE(entry, nullptr) << file.name;
    EXPECT_TRUE(check_file(*entry, file.content).has_value()) << file.name;
    ++checked;
  }
  EXPECT_GE(checked, 7u);
  EXPECT_NE(built.index.file("artifacts.json"), nullptr);
  EXPECT_NE(built.index.file("torch-check.py"), nullptr);
}

// The CBOR the build made of each JSON file says what the file's text says (knowledge::parsed
// reads it instead of the text for the compiled-in bundle).
TEST(CompiledInBundle, ParsedFormsSayWhatTheTextSays) {
  if (embedded::parsed_files().empty()) GTEST_SKIP() << "a cross build embeds no CBOR (it cannot run its build tool); the text is parsed";
  std::size_t compared = 0;
  for (const auto& file : embedded::files()) {
    if (!file.name.ends_with(".json") || file.name == kIndexName) continue;
    const auto cbor = embedded::find_parsed(std::string(file.name) + ".cbor");
    ASSERT_TRUE(cbor) << file.name;
    const auto from_cbor = nlohmann::json::from_cbor(cbor->begin(), cbor->end());
    EXPECT_EQ(from_cbor, nlohmann::json::parse(file.content)) << file.name;
    EXPECT_EQ(*knowledge::parsed(file.name), from_cbor) << file.name;
    ++compared;
  }
  EXPECT_GE(compared, 8u);
  EXPECT_FALSE(knowledge::parsed("no-such-file.json"));
}

// A build configured with a signing key embeds the signature of the compiled-in index.
TEST(CompiledInBundle, IsSignedWhenTheBuildHadAKey) {
  const auto signature = embedded::find(kSignatureName);
  if (!signature) GTEST_SKIP() << "built without ZCUDA_KNOWLEDGE_SIGNING_KEY: the compiled-in bundle is unsigned (docs/knowledge.md)";
  const auto parsed = parse_signature(*signature);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(verify(parsed->key, *embedded::find(kIndexName), parsed->signature));
}

// An installed bundle at <folder>/<version> with `current` naming it, signed by `keys`.
void install_by_hand(const std::filesystem::path& folder, const TestBundle& bundle, const TestKeys& keys) {
  test::write_bundle(folder / std::to_string(bundle.version), bundle, keys);
  test::write_text(folder / "current", std::to_string(bundle.version) + "\n");
}

TEST(ActiveBundle, WithoutAnInstalledOneIsTheCompiledIn) {
  test::TempDir dir;
  const Bundle b = load(dir.path(), now());
  EXPECT_TRUE(b.compiled_in);
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_TRUE(load(std::nullopt, now()).compiled_in);
}

// These need the test root trusted; ZCUDA_TEST_KNOWLEDGE_ROOT is read by trusted_roots().
class ActiveInstalled : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!platform::test_hooks::enabled()) GTEST_SKIP() << "needs a build with test hooks";
    root_ = std::make_unique<test::ScopedEnv>("ZCUDA_TEST_KNOWLEDGE_ROOT", keys.root.public_hex);
    bundle.version = compiled_in_version() + 1;
    bundle.files["artifacts.json"] = "{\"installed\": true}";
  }
  TestKeys keys;
  std::unique_ptr<test::ScopedEnv> root_;
  TestBundle bundle;
  test::TempDir dir;
};

TEST_F(ActiveInstalled, ANewerValidOneIsUsed) {
  install_by_hand(dir.path(), bundle, keys);
  const Bundle b = load(dir.path(), now());
  EXPECT_FALSE(b.compiled_in);
  EXPECT_EQ(b.index.version, bundle.version);
  EXPECT_EQ(b.files.at("artifacts.json"), "{\"installed\": true}");
  EXPECT_EQ(read_pointer(dir.path()), bundle.version);
}

TEST_F(ActiveInstalled, AnExpiredOneIsStillUsedWithAWarning) {
  bundle.published = now() - std::chrono::days(100);
  bundle.expires = now() - std::chrono::days(70);
  install_by_hand(dir.path(), bundle, keys);
  const Bundle b = load(dir.path(), now());
  EXPECT_FALSE(b.compiled_in);
  EXPECT_TRUE(b.expired);
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("70 days ago"), std::string::npos) << b.warnings[0];
}

TEST_F(ActiveInstalled, AnOlderOneThanTheCompiledInIsNeverUsed) {
  bundle.version = compiled_in_version() - 1;
  install_by_hand(dir.path(), bundle, keys);
  EXPECT_TRUE(load(dir.path(), now()).compiled_in);
}

TEST_F(ActiveInstalled, ATamperedOneFallsBackToTheCompiledIn) {
  install_by_hand(dir.path(), bundle, keys);
  test::write_text(dir.path() / std::to_string(bundle.version) / "artifacts.json", "{\"installed\": false}");
  Bundle b = load(dir.path(), now());
  EXPECT_TRUE(b.compiled_in);
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("bytes"), std::string::npos) << b.warnings[0];
  // A signature by another root: not used either.
  TestKeys strangers;
  install_by_hand(dir.path(), bundle, strangers);
  b = load(dir.path(), now());
  EXPECT_TRUE(b.compiled_in);
  EXPECT_EQ(b.warnings.size(), 1u);
}

TEST_F(ActiveInstalled, ADamagedCurrentOneFallsBackToTheNewestValidInstalledOne) {
  install_by_hand(dir.path(), bundle, keys);
  TestBundle newer = bundle;
  newer.version = bundle.version + 1;
  install_by_hand(dir.path(), newer, keys);
  std::filesystem::remove(dir.path() / std::to_string(newer.version) / "index.json.sig");
  const Bundle b = load(dir.path(), now());
  EXPECT_FALSE(b.compiled_in);
  EXPECT_EQ(b.index.version, bundle.version);
  ASSERT_FALSE(b.warnings.empty());
  EXPECT_NE(b.warnings[0].find(std::to_string(newer.version)), std::string::npos) << b.warnings[0];
}

}  // namespace
}  // namespace zcuda::knowledge
