// zcuda update driven as a user drives it: signed bundles from a folder and from a loopback HTTPS
// feed that serves each attack, real kills at each step of an install.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/manifest/bundle.hpp>
#include <zcuda/manifest/embedded.hpp>

#include "support/http_server.hpp"
#include "support/knowledge_bundle.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kNewPin = "zluda-v7-knowledge-test-windows";

// The compiled-in knowledge files, with the "latest" channel's ZLUDA pin replaced by a newer
// release (a made-up one: the test bundle is never published).
std::map<std::string, std::string> files_with_new_pin(const std::string& id = kNewPin) {
  std::map<std::string, std::string> files;
  for (const auto& f : embedded::files()) {
    if (f.name != knowledge::kIndexName) files[std::string(f.name)] = std::string(f.content);
  }
  json artifacts = json::parse(files.at("artifacts.json"));
  for (auto& pin : artifacts["artifacts"]) {
    if (pin.value("component", "") == "zluda" && pin.value("channel", "") == "latest" && pin.value("os", "") == "windows") {
      pin["id"] = id;
      pin["version"] = "v7-knowledge-test";
    }
  }
  files["artifacts.json"] = artifacts.dump(2);
  return files;
}

class UpdateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    env_["ZCUDA_TEST_KNOWLEDGE_ROOT"] = keys_.root.public_hex;
    bundle_.version = knowledge::compiled_in_version() + 10;
    bundle_.files = files_with_new_pin();
  }

  CommandResult zcuda(std::vector<std::string> args) {
    args.insert(args.begin(), {"--home", home_.path().string()});
    CommandOptions options;
    options.set_env = env_;
    return run_zcuda(args, options);
  }
  std::uint64_t version_in_use() {
    const auto r = zcuda({"--json", "version"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return json::parse(r.out)["knowledge"]["version"].get<std::uint64_t>();
  }
  fs::path knowledge() const { return home_.path() / "knowledge"; }

  TempDir home_;
  TempDir work_;
  TestKeys keys_;
  TestBundle bundle_;
  std::map<std::string, std::string> env_;
};

TEST_F(UpdateCli, FromAFolderAddsAPinnedReleaseThatInstallListShows) {
  const auto before = zcuda({"--json", "install", "--list", "--os", "windows", "--channel", "latest"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(before.out.find(kNewPin), std::string::npos);

  write_bundle(work_.path() / "feed", bundle_, keys_);
  const auto r = zcuda({"update", "--from", (work_.path() / "feed").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("added pin: ") + kNewPin), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(knowledge() / std::to_string(bundle_.version) / "index.json"));

  const auto after = zcuda({"--json", "install", "--list", "--os", "windows", "--channel", "latest"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_NE(after.out.find(kNewPin), std::string::npos) << after.out;
  EXPECT_EQ(version_in_use(), bundle_.version);
  const auto line = zcuda({"--version"});
  EXPECT_NE(line.out.find("knowledge " + std::to_string(bundle_.version)), std::string::npos) << line.out;

  // The same bundle again: nothing to do.
  const auto again = zcuda({"--json", "update", "--from", (work_.path() / "feed").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(json::parse(again.out)["up_to_date"].get<bool>());
}

TEST_F(UpdateCli, CheckSaysWhatIsNewAndChangesNothing) {
  write_bundle(work_.path() / "feed", bundle_, keys_);
  const auto r = zcuda({"--json", "update", "--check", "--from", (work_.path() / "feed").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto out = json::parse(r.out);
  EXPECT_FALSE(out["installed"].get<bool>());
  EXPECT_EQ(out["to_version"].get<std::uint64_t>(), bundle_.version);
  bool found = false;
  for (const auto& c : out["changes"]) found = found || (c["kind"] == "pin" && c["action"] == "added" && c["id"] == kNewPin);
  EXPECT_TRUE(found) << r.out;
  EXPECT_FALSE(fs::exists(knowledge() / "current"));
  EXPECT_EQ(version_in_use(), knowledge::compiled_in_version());
}

TEST_F(UpdateCli, WithoutAFeedSaysHowToNameOne) {
  env_["ZCUDA_KNOWLEDGE_FEED"] = "";
  const auto r = zcuda({"update"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--from"), std::string::npos) << r.err;
}

// An installed bundle long past its expiry is still used (the newest valid one), with a warning
// from every command, and detect says so as a finding.
TEST_F(UpdateCli, AStaleBundleIsUsedAndDetectWarns) {
  bundle_.published = knowledge::now() - std::chrono::days(120);
  bundle_.expires = knowledge::now() - std::chrono::days(61) - std::chrono::hours(1);
  write_bundle(knowledge() / std::to_string(bundle_.version), bundle_, keys_);
  write_text(knowledge() / "current", std::to_string(bundle_.version) + "\n");
  const auto version = zcuda({"--json", "version"});
  ASSERT_EQ(version.exit_code, 0) << version.err;
  const auto k = json::parse(version.out)["knowledge"];
  EXPECT_EQ(k["version"].get<std::uint64_t>(), bundle_.version);
  EXPECT_TRUE(k["expired"].get<bool>());
  EXPECT_NE(version.err.find("expired 61 days ago"), std::string::npos) << version.err;

  TempDir root;
  const auto detect = zcuda({"--json", "detect", "--root", root.path().string()});
  ASSERT_EQ(detect.exit_code, 0) << detect.err;
  const auto out = json::parse(detect.out);
  EXPECT_EQ(out["knowledge"]["version"].get<std::uint64_t>(), bundle_.version);
  bool warned = false;
  for (const auto& f : out["findings"]) warned = warned || f["code"] == "knowledge-stale";
  EXPECT_TRUE(warned) << detect.out;
}

// A loopback HTTPS feed under /feed/; each test breaks it one way. The Windows build serves it
// over plain HTTP: certificate trust there is Schannel's and the Windows certificate store's,
// which Wine does not reproduce (tests/unit/fetch/tls_test.cpp), while every refusal tested here
// rests on the signatures and the transfer's bounds, the same code over either.
class UpdateAttacks : public UpdateCli {
 protected:
  void SetUp() override {
    UpdateCli::SetUp();
#ifdef _WIN32
    server_ = std::make_unique<HttpServer>();
#else
    fs::create_directories(work_.path() / "tls");
    tls_ = make_self_signed_cert(work_.path() / "tls");
    server_ = std::make_unique<HttpServer>(tls_);
#endif
  }
  static std::string scheme() {
#ifdef _WIN32
    return "http";
#else
    return "https";
#endif
  }
  void publish(const TestBundle& bundle, const TestKeys& keys) {
    const std::string index = bundle.index_text();
    serve("index.json", index);
    serve("index.json.sig", sign_index(index, keys));
    for (const auto& [name, content] : bundle.files) serve(name, content);
  }
  void serve(const std::string& name, std::string body, HttpResource resource = {}) {
    resource.body = std::move(body);
    server_->serve("/feed/" + name, resource);
  }
  CommandResult update(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"update", "--feed", server_->url("/feed/")};
    if (!tls_.cert.empty()) args.insert(args.end(), {"--cacert", tls_.cert.string()});
    args.insert(args.end(), extra.begin(), extra.end());
    return zcuda(args);
  }
  // Refused with `code`, nothing installed, the compiled-in bundle still in use.
  void expect_refused(const CommandResult& r, int code, const std::string& words) {
    EXPECT_EQ(r.exit_code, code) << r.out << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(knowledge() / std::to_string(bundle_.version)));
    EXPECT_EQ(version_in_use(), knowledge::compiled_in_version());
  }
  TlsFiles tls_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(UpdateAttacks, AGoodFeedInstalls) {
  publish(bundle_, keys_);
  const auto r = update();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(version_in_use(), bundle_.version);
}

TEST_F(UpdateAttacks, ASignatureByAnUnknownKeyIsRefused) {
  publish(bundle_, TestKeys{});
  expect_refused(update(), 15, "does not trust");
}

TEST_F(UpdateAttacks, AnIndexChangedAfterSigningIsRefused) {
  publish(bundle_, keys_);
  std::string index = bundle_.index_text();
  index.replace(index.find("\"min_zcuda\": \"0.0.1\""), 20, "\"min_zcuda\": \"0.0.2\"");
  serve("index.json", index);
  expect_refused(update(), 16, "does not verify");
}

TEST_F(UpdateAttacks, ARollbackIsRefused) {
  publish(bundle_, keys_);
  ASSERT_EQ(update().exit_code, 0);
  TestBundle older = bundle_;
  older.version = bundle_.version - 1;
  publish(older, keys_);
  const auto r = update();
  EXPECT_EQ(r.exit_code, 17) << r.out << r.err;
  EXPECT_NE(r.err.find("older than bundle"), std::string::npos) << r.err;
  EXPECT_EQ(version_in_use(), bundle_.version);
}

TEST_F(UpdateAttacks, AnExpiredIndexIsRefusedAndSaysHowOld) {
  bundle_.published = knowledge::now() - std::chrono::days(40);
  bundle_.expires = knowledge::now() - std::chrono::days(9) - std::chrono::hours(2);
  publish(bundle_, keys_);
  expect_refused(update(), 18, "expired 9 days ago");
}

TEST_F(UpdateAttacks, AFileFromAnotherBundleIsRefused) {
  publish(bundle_, keys_);
  serve("artifacts.json", files_with_new_pin("zluda-v7-other-windows").at("artifacts.json"));
  expect_refused(update(), 19, "artifacts.json");
}

TEST_F(UpdateAttacks, ATruncatedFileIsRefused) {
  publish(bundle_, keys_);
  server_->push_fault("/feed/artifacts.json", HttpFault{.cut_after = 100});
  const auto r = update();
  EXPECT_TRUE(r.exit_code == 7 || r.exit_code == 19) << r.exit_code << r.err;
  EXPECT_EQ(version_in_use(), knowledge::compiled_in_version());
}

TEST_F(UpdateAttacks, AnOversizedIndexIsRefused) {
  publish(bundle_, keys_);
  serve("index.json", std::string(1u << 20, ' '));
  expect_refused(update(), 20, "bytes allowed");
}

TEST_F(UpdateAttacks, AnEndlessBodyIsStoppedAtItsBound) {
  publish(bundle_, keys_);
  // No length announced: only the bound stops it.
  serve("index.json.sig", std::string(4u << 20, '{'), HttpResource{.content_length = false, .chunk = 64 * 1024});
  expect_refused(update(), 20, "bytes allowed");
}

TEST_F(UpdateAttacks, ASlowDripIsCutOffAtTheTimeLimit) {
  publish(bundle_, keys_);
  serve("index.json", bundle_.index_text(), HttpResource{.chunk = 1, .chunk_delay = std::chrono::milliseconds(200)});
  expect_refused(update({"--max-time", "2"}), 21, "did not finish within 2 s");
}

TEST_F(UpdateAttacks, ARedirectToAnotherHostIsRefused) {
  publish(bundle_, keys_);
  const std::string elsewhere = scheme() + "://localhost:" + std::to_string(server_->port()) + "/feed/index.json";
  server_->push_fault("/feed/index.json", HttpFault{.status = 302, .location = elsewhere});
  expect_refused(update(), 22, "another host");
}

// A kill -9 at each step of an install leaves the old bundle or the new one in use, whole.
TEST_F(UpdateCli, AKillAtAnyStepLeavesTheOldOrTheNewBundle) {
  write_bundle(work_.path() / "old", bundle_, keys_);
  ASSERT_EQ(zcuda({"update", "--from", (work_.path() / "old").string()}).exit_code, 0);
  TestBundle newer = bundle_;
  newer.version = bundle_.version + 1;
  newer.files = files_with_new_pin("zluda-v7-newer-windows");
  write_bundle(work_.path() / "new", newer, keys_);
  for (const char* step : {"knowledge-staged", "knowledge-renamed", "knowledge-pointer-written"}) {
    SCOPED_TRACE(step);
    BackgroundOptions options;
    options.set_env = env_;
    options.set_env["ZCUDA_TEST_PAUSE_AT"] = step;
    options.err = work_.path() / (std::string(step) + ".err");
    BackgroundProcess p({ZCUDA_BIN, "--home", home_.path().string(), "update", "--from", (work_.path() / "new").string()}, options);
    ASSERT_TRUE(p.wait_for_err("paused at")) << p.err();
    p.kill();
    p.wait();
    const auto in_use = version_in_use();
    EXPECT_EQ(in_use, std::string(step) == "knowledge-pointer-written" ? newer.version : bundle_.version);
    const auto list = zcuda({"--json", "install", "--list", "--os", "windows", "--channel", "latest"});
    EXPECT_EQ(list.out.find("zluda-v7-newer-windows") != std::string::npos, in_use == newer.version) << list.out;
    if (in_use == newer.version) {
      // Back to the old one for the next step.
      fs::remove_all(knowledge() / std::to_string(newer.version));
      write_text(knowledge() / "current", std::to_string(bundle_.version) + "\n");
    }
  }
  // An update after all those kills completes.
  const auto r = zcuda({"update", "--from", (work_.path() / "new").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(version_in_use(), newer.version);
}

}  // namespace
}  // namespace zcuda::test
