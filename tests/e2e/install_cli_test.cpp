// zcuda install driven as a user drives it: real processes, real archives, real kills.
#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>

#include "support/archive_builder.hpp"
#include "support/file_url.hpp"
#include "support/http_server.hpp"
#include "support/run_command.hpp"
#include "support/test_hooks.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A zcuda started in the background with its output in files, for tests that must act while
// it runs (kill it, start a second one).
class Background : public BackgroundProcess {
 public:
  Background(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const fs::path& logs)
      : BackgroundProcess(command(args), options(env, logs)) {}
  int kill_now() {
    kill();
    return wait();
  }

 private:
  static std::vector<std::string> command(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ZCUDA_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  static BackgroundOptions options(const std::map<std::string, std::string>& env, const fs::path& logs) {
    BackgroundOptions o;
    o.set_env = env;
    o.set_env.try_emplace("NO_COLOR", "1");
    o.out = logs / ("out-" + std::to_string(counter_) + ".txt");
    o.err = logs / ("err-" + std::to_string(counter_++) + ".txt");
    return o;
  }
  static inline int counter_ = 0;
};

// Files of the test artifact once installed, with their contents.
std::map<std::string, std::string> expected_files() {
  std::map<std::string, std::string> files = {{"nvcuda.dll", "nvcuda bytes"}, {"zluda.exe", "launcher"}};
  for (int i = 0; i < 40; ++i)
    files["lib/part" + std::to_string(i) + ".dll"] = std::string(static_cast<std::size_t>(20000 + i), static_cast<char>('a' + i % 26));
  // Bytes that do not compress, so the archive is large enough to interrupt mid-download.
  std::string noise(300000, '\0');
  std::uint32_t x = 12345;
  for (auto& c : noise) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  files["lib/noise.bin"] = noise;
  return files;
}

struct Scene {
  TempDir dir;
  fs::path home = dir / "home";
  fs::path archive = dir / "src" / "zluda-test.zip";
  fs::path manifest = dir / "manifest.json";
  std::string sha256;
  std::uintmax_t size = 0;

  Scene() {
    fs::create_directories(dir / "src");
    fs::create_directories(dir / "logs");
    std::vector<Spec> entries = {test::dir("zluda/"), test::file("README", "outside the root")};
    for (const auto& [name, content] : expected_files()) entries.push_back(test::file("zluda/" + name, content));
    write_archive(archive, ArchiveType::zip, entries);
    sha256 = sha256_file(archive).value();
    size = fs::file_size(archive);
    write_manifest(test::file_url(archive));
  }

  void write_manifest(const std::string& url) {
    json entry = {{"id", "zluda-test"},
                  {"component", "zluda"},
                  {"version", "v1"},
                  {"os", "any"},
                  {"url", url},
                  {"sha256", sha256},
                  {"size", size},
                  {"archive", "zip"},
                  {"root", "zluda"},
                  {"license", "Apache-2.0 OR MIT (test)"},
                  {"expected_files", {"nvcuda.dll", "zluda.exe"}}};
    write_file(manifest, json{{"schema", 1}, {"artifacts", {entry}}}.dump(2));
  }

  std::vector<std::string> install_args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"--home", home.string(), "install", "--manifest", manifest.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  fs::path component() const { return home / "installs" / "zluda"; }

  // The rule of the whole issue: a version folder is either absent or complete and correct,
  // and "current" names only a complete version.
  void expect_nothing_half_installed(const std::string& when) const {
    const fs::path version = component() / "v1";
    if (fs::exists(version)) {
      std::size_t files = 0;
      for (const auto& e : fs::recursive_directory_iterator(version)) files += e.is_regular_file() ? 1u : 0u;
      EXPECT_EQ(files, expected_files().size()) << when;
      for (const auto& [name, content] : expected_files()) {
        EXPECT_EQ(read_file(version / name), content) << when << ": " << name;
      }
    }
    if (fs::exists(component() / "current")) {
      EXPECT_EQ(read_file(component() / "current"), "v1\n") << when;
      EXPECT_TRUE(fs::exists(version)) << when << ": current names a missing version";
    }
  }

  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(component(), ec)) {
      auto name = e.path().filename().string();
      if (name.starts_with(".") || name.find(".tmp-") != std::string::npos) names.push_back(name);
    }
    return names;
  }
};

json parse_json(const CommandResult& r) {
  auto doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
  return doc;
}

TEST(InstallCli, DryRunShowsThePinnedWindowsPlanAndWritesNothing) {
  TempDir dir;
  auto r = run_zcuda({"--home", (dir / "home").string(), "install", "--dry-run", "--os", "windows"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("https://github.com/vosen/ZLUDA/releases/download/v6/zluda-windows-3fe1206.zip"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("35,506,692 bytes"), std::string::npos);
  EXPECT_NE(r.out.find("fda8891c6fdfaba438f2eb0f9d749ffa2c1fddbdf225be2301f0d7a25e37208a"), std::string::npos);
  EXPECT_NE(r.out.find((dir / "home" / "installs" / "zluda" / "v6").string()), std::string::npos);
  EXPECT_NE(r.out.find("Apache-2.0 OR MIT"), std::string::npos);
  EXPECT_NE(r.out.find("--with-libtorch"), std::string::npos) << "the skipped optional artifact says how to get it";
  EXPECT_FALSE(fs::exists(dir / "home" / "installs"));

  auto j =
      run_zcuda({"--home", (dir / "home").string(), "--json", "install", "--dry-run", "--os", "windows", "--channel", "latest", "--with-libtorch"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = parse_json(j);
  EXPECT_EQ(doc["command"], "install");
  EXPECT_EQ(doc["dry_run"], true);
  ASSERT_EQ(doc["artifacts"].size(), 4u);  // the Linux v6 is listed, skipped
  EXPECT_EQ(doc["artifacts"][0]["state"], "skipped");
  EXPECT_EQ(doc["artifacts"][1]["state"], "planned");
  EXPECT_EQ(doc["artifacts"][1]["size"], nullptr);
  EXPECT_EQ(doc["artifacts"][2]["state"], "planned");
  EXPECT_EQ(doc["artifacts"][2]["size"], 2660890386u);
}

// Upstream's v6 for Linux is pinned (deeplearning4j's digest); no size is published, so the dry
// run shows none, and the latest channel still has no Linux artifact.
TEST(InstallCli, LinuxStableIsPinnedWithoutASize) {
  TempDir dir;
  auto r = run_zcuda({"--home", (dir / "home").string(), "--json", "install", "--dry-run", "--os", "linux"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = parse_json(r);
  bool planned = false;
  for (const auto& a : doc["artifacts"]) {
    if (a["state"] != "planned") continue;
    planned = true;
    EXPECT_EQ(a["id"], "zluda-v6-linux");
    EXPECT_EQ(a["size"], nullptr);
  }
  EXPECT_TRUE(planned) << r.out;
  EXPECT_FALSE(fs::exists(dir / "home" / "installs"));
}

TEST(InstallCli, BadManifestNamesTheJsonPath) {
  TempDir dir;
  write_file(dir / "m.json", R"({"schema": 1, "artifacts": [{"id": "x"}]})");
  auto r = run_zcuda({"--home", (dir / "home").string(), "install", "--manifest", (dir / "m.json").string()});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("artifacts[0]: missing required field \"component\""), std::string::npos) << r.err;
}

TEST(InstallCli, InstallsFromAFileUrlThenRerunIsANoOpWithoutTheSource) {
  Scene s;
  auto first = run_zcuda(s.install_args());
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("installed"), std::string::npos);
  EXPECT_NE(first.err.find("license Apache-2.0 OR MIT (test)"), std::string::npos) << "each artifact's license is shown";
  // zcuda's messages have one format: every line on stderr is zcuda's and says so.
  std::istringstream lines(first.err);
  for (std::string line; std::getline(lines, line);) EXPECT_TRUE(line.starts_with("zcuda: ")) << line;
  s.expect_nothing_half_installed("after install");
  EXPECT_TRUE(fs::exists(s.component() / "current"));

  fs::remove(s.archive);
  fs::remove_all(s.home / "cache");
  auto again = run_zcuda({"--json", "--home", s.home.string(), "install", "--manifest", s.manifest.string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(parse_json(again)["artifacts"][0]["state"], "already-installed");
  EXPECT_FALSE(fs::exists(s.home / "cache" / s.sha256)) << "nothing was fetched";
}

TEST(InstallCli, InstallsOfflineFromAFolder) {
  Scene s;
  fs::create_directories(s.dir / "offline");
  fs::rename(s.archive, s.dir / "offline" / "zluda-test.zip");
  s.write_manifest("https://unreachable.invalid/zluda-test.zip");
  auto r = run_zcuda(s.install_args({"--from", (s.dir / "offline").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  s.expect_nothing_half_installed("after offline install");
  EXPECT_TRUE(fs::exists(s.component() / "v1" / "nvcuda.dll"));
}

TEST(InstallCli, RepairThenRemove) {
  Scene s;
  ASSERT_EQ(run_zcuda(s.install_args()).exit_code, 0);
  write_file(s.component() / "v1" / "zluda.exe", "LAUNCHER");  // same size, other bytes
  auto repair = run_zcuda({"--json", "--home", s.home.string(), "install", "--manifest", s.manifest.string(), "--repair"});
  ASSERT_EQ(repair.exit_code, 0) << repair.out << repair.err;
  auto doc = parse_json(repair);
  EXPECT_EQ(doc["artifacts"][0]["state"], "repaired");
  EXPECT_EQ(doc["artifacts"][0]["repaired_files"], json::array({"zluda.exe"}));
  s.expect_nothing_half_installed("after repair");

  auto removed = run_zcuda({"--json", "--home", s.home.string(), "install", "--remove", "zluda-test"});
  ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  EXPECT_EQ(parse_json(removed)["artifacts"][0]["state"], "removed");
  EXPECT_FALSE(fs::exists(s.component() / "v1"));
  EXPECT_FALSE(fs::exists(s.component() / "current"));
  auto again = run_zcuda({"--home", s.home.string(), "install", "--remove", "zluda-test"});
  EXPECT_EQ(again.exit_code, 3) << "nothing left to remove";
}

TEST(InstallCli, SecondInstallWaitsAndSaysSoOrFailsWithNoWait) {
  ZCUDA_REQUIRE_TEST_HOOKS();
  Scene s;
  Background first(s.install_args(), {{"ZCUDA_TEST_PAUSE_AT", "locked"}, {"ZCUDA_TEST_PAUSE_SECONDS", "15"}}, s.dir / "logs");
  ASSERT_TRUE(first.wait_for_err("paused at locked")) << first.err();

  auto refused = run_zcuda(s.install_args({"--no-wait"}));
  EXPECT_EQ(refused.exit_code, 9) << refused.err;
  EXPECT_NE(refused.err.find("Another zcuda install (pid " + std::to_string(first.pid()) + ") is running"), std::string::npos) << refused.err;

  Background second(s.install_args({"--json"}), {}, s.dir / "logs");
  EXPECT_TRUE(second.wait_for_err("waiting for another zcuda install (pid " + std::to_string(first.pid()) + ") to finish", 30)) << second.err();
  EXPECT_EQ(first.wait(), 0) << first.err();
  EXPECT_EQ(second.wait(), 0) << second.err();
  auto doc = json::parse(second.out(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << second.out();
  EXPECT_EQ(doc["artifacts"][0]["state"], "already-installed") << "the second saw the first's finished work";
  s.expect_nothing_half_installed("after two installs");
}

class KilledAt : public ::testing::TestWithParam<std::string> {};

TEST_P(KilledAt, NextRunCompletesAndNothingHalfInstalledIsEverVisible) {
  ZCUDA_REQUIRE_TEST_HOOKS();
  Scene s;
  Background victim(s.install_args(), {{"ZCUDA_TEST_PAUSE_AT", GetParam()}}, s.dir / "logs");
  ASSERT_TRUE(victim.wait_for_err("paused at " + GetParam())) << victim.err();
  s.expect_nothing_half_installed("paused at " + GetParam());
  EXPECT_EQ(victim.kill_now(), kKilledStatus);
  s.expect_nothing_half_installed("killed at " + GetParam());

  auto next = run_zcuda(s.install_args());
  ASSERT_EQ(next.exit_code, 0) << next.out << next.err;
  s.expect_nothing_half_installed("after the next run");
  EXPECT_TRUE(fs::exists(s.component() / "v1" / "nvcuda.dll"));
  EXPECT_EQ(read_file(s.component() / "current"), "v1\n");
  EXPECT_TRUE(s.leftovers().empty()) << ::testing::PrintToString(s.leftovers());
}

INSTANTIATE_TEST_SUITE_P(Steps, KilledAt,
                         ::testing::Values("locked", "fetched", "extracting", "extracted", "renamed", "receipt-written", "pointer-written"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(InstallCli, KilledAfterIncreasingDelaysNeverLeavesAHalfInstall) {
  Scene s;
  for (int delay_ms : {0, 2, 5, 10, 15, 20, 30, 45, 60, 80, 120}) {
    fs::remove_all(s.home / "installs");
    Background victim(s.install_args(), {}, s.dir / "logs");
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    victim.kill_now();
    s.expect_nothing_half_installed("killed after " + std::to_string(delay_ms) + " ms");
    auto next = run_zcuda(s.install_args());
    ASSERT_EQ(next.exit_code, 0) << next.err;
    s.expect_nothing_half_installed("rerun after a kill at " + std::to_string(delay_ms) + " ms");
    EXPECT_TRUE(s.leftovers().empty());
  }
}

TEST(InstallCli, CtrlCStopsCleanlyAndKeepsTheDownload) {
  ZCUDA_REQUIRE_TEST_HOOKS();
  if (!BackgroundProcess::can_interrupt()) GTEST_SKIP() << "Ctrl-C reaches a Windows program through a console, and this test runs without one";
  Scene s;
  Background victim(s.install_args(), {{"ZCUDA_TEST_PAUSE_AT", "extracting"}}, s.dir / "logs");
  ASSERT_TRUE(victim.wait_for_err("paused at extracting")) << victim.err();
  victim.interrupt();
  EXPECT_EQ(victim.wait(), 12) << victim.err();
  EXPECT_NE((victim.out() + victim.err()).find("nterrupted"), std::string::npos) << victim.out() << victim.err();
  EXPECT_FALSE(fs::exists(s.component() / "v1"));
  EXPECT_TRUE(s.leftovers().empty()) << "the interrupted run removed its temporary folder";
  EXPECT_TRUE(fs::exists(s.home / "cache" / s.sha256)) << "the verified download stays for the next run";
}

TEST(InstallCli, CtrlCDuringADownloadKeepsThePartialAndTheNextRunResumes) {
  if (!BackgroundProcess::can_interrupt()) GTEST_SKIP() << "Ctrl-C reaches a Windows program through a console, and this test runs without one";
  Scene s;
  HttpServer server;
  HttpResource resource;
  resource.body = read_file(s.archive);
  resource.etag = "\"v1\"";
  resource.chunk = resource.body.size() / 200 + 1;  // about 2 s in all: time to interrupt it
  resource.chunk_delay = std::chrono::milliseconds(10);
  server.serve("/zluda-test.zip", resource);
  s.write_manifest(server.url("/zluda-test.zip"));

  Background victim(s.install_args(), {}, s.dir / "logs");
  const fs::path partial = s.home / "cache" / (s.sha256 + ".partial");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::error_code ec;
  // Wait for a quarter of the bytes (the partial grows as the download's buffer is flushed).
  while (std::chrono::steady_clock::now() < until &&
         !(fs::exists(partial, ec) && fs::file_size(partial, ec) > resource.body.size() / 4 && fs::file_size(partial, ec) < resource.body.size())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(fs::exists(partial)) << victim.err();
  victim.interrupt();
  EXPECT_EQ(victim.wait(), 12) << victim.out() << victim.err();
  std::string cache_listing;
  for (const auto& e : fs::directory_iterator(s.home / "cache", ec)) cache_listing += e.path().filename().string() + " ";
  ASSERT_TRUE(fs::exists(partial)) << "the partial download stays for resuming; cache: " << cache_listing << victim.out() << victim.err();
  const auto kept = fs::file_size(partial);
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, resource.body.size());
  EXPECT_FALSE(fs::exists(s.component() / "v1"));

  auto next = run_zcuda(s.install_args());
  ASSERT_EQ(next.exit_code, 0) << next.out << next.err;
  s.expect_nothing_half_installed("after resuming");
  EXPECT_TRUE(fs::exists(s.component() / "v1" / "nvcuda.dll"));
  const auto requests = server.requests_for("/zluda-test.zip");
  ASSERT_GE(requests.size(), 2u);
  EXPECT_FALSE(requests.back().header("range").empty()) << "the second run asked only for the missing bytes";
}

// install --adopt as a user does it: an application's ZLUDA folder registered by name, used by
// run and verify through that name, a change noticed, and --remove forgetting it while every
// file stays as the application left it.
TEST(InstallCli, AdoptRunVerifyByNameThenRemoveForgets) {
#ifdef _WIN32
  GTEST_SKIP() << "the stand-in runtime and /bin/sh are Linux's";
#else
  TempDir dir;
  const fs::path app = dir / "ComfyUI" / "zluda";
  const std::map<std::string, std::string> files = {{"libcuda.so.1", std::string("\x7f"
                                                                                 "ELF") +
                                                                         std::string(60, '\x02') + "not really a driver"},
                                                    {"libcublas.so.12", "cublas"},
                                                    {"trace/libcuda.so.1", "shim"}};
  for (const auto& [name, content] : files) write_file(app / name, content);
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = (dir / "home").string();
  o.set_env["NO_COLOR"] = "1";

  auto adopted = run_zcuda({"--json", "install", "--adopt", app.string()}, o);
  ASSERT_EQ(adopted.exit_code, 0) << adopted.out << adopted.err;
  const auto a = json::parse(adopted.out);
  EXPECT_EQ(a["adopted"], "ComfyUI-zluda");
  EXPECT_EQ(a["dir"], app.string());
  EXPECT_EQ(a["family"]["family"], "unknown");
  auto taken = run_zcuda({"install", "--adopt", app.string(), "--name", "ComfyUI-zluda"}, o);
  EXPECT_EQ(taken.exit_code, 2) << taken.err;
  auto not_zluda = run_zcuda({"install", "--adopt", dir.path().string()}, o);
  EXPECT_EQ(not_zluda.exit_code, 3) << not_zluda.err;
  EXPECT_NE(not_zluda.err.find("holds no ZLUDA library"), std::string::npos) << not_zluda.err;

  auto listed = run_zcuda({"--json", "install", "--list", "--os", "windows"}, o);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto runtimes = json::parse(listed.out)["runtimes"];
  ASSERT_FALSE(runtimes.empty());
  EXPECT_EQ(runtimes[0]["version"], "ComfyUI-zluda");
  EXPECT_EQ(runtimes[0]["state"], "adopted");
  EXPECT_EQ(runtimes[0]["dir"], app.string());
  EXPECT_EQ(runtimes[0]["current"], false);
  // The Windows stable pin is listed as not installed.
  EXPECT_TRUE(std::ranges::any_of(runtimes, [](const json& r) { return r["state"] == "not-installed" && r["version"] == "v6"; })) << runtimes.dump();
  auto listed_text = run_zcuda({"install", "--list"}, o);
  EXPECT_NE(listed_text.out.find("adopted"), std::string::npos) << listed_text.out;

  auto ran = run_zcuda({"run", "--runtime", "ComfyUI-zluda", "--no-stage", "--no-detect", "/bin/sh", "-c", "echo \"$LD_LIBRARY_PATH\""}, o);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.out.find(app.string()), std::string::npos) << ran.out;
  EXPECT_EQ(ran.err.find("changed since"), std::string::npos) << ran.err;

  auto verified = run_zcuda({"--json", "verify", "--runtime", "ComfyUI-zluda", "--check", "driver.init"}, o);
  const auto v = json::parse(verified.out);
  EXPECT_EQ(v["runtime"]["dir"], app.string()) << verified.out;

  // The application updated a file: every use warns, naming it.
  write_file(app / "libcublas.so.12", "a newer cublas");
  auto warned = run_zcuda({"run", "--runtime", "ComfyUI-zluda", "--no-stage", "--no-detect", "/bin/true"}, o);
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("changed since it was adopted (libcublas.so.12)"), std::string::npos) << warned.err;
  write_file(app / "libcublas.so.12", "cublas");

  auto removed = run_zcuda({"--json", "install", "--remove", "ComfyUI-zluda"}, o);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(json::parse(removed.out)["artifacts"][0]["state"], "removed");
  for (const auto& [name, content] : files) EXPECT_EQ(read_file(app / name), content) << name;
  auto gone = run_zcuda({"run", "--runtime", "ComfyUI-zluda", "--no-stage", "--no-detect", "/bin/true"}, o);
  EXPECT_EQ(gone.exit_code, 3) << gone.err;
#endif
}

// install --url as a user runs it: other bytes than vouched for are exit 6 and leave nothing;
// the right digest installs a user-vouched runtime that --list shows.
TEST(InstallCli, UrlWithAWrongDigestLeavesNothingAndTheRightOneInstalls) {
  Scene s;
  HttpServer server;
  HttpResource resource;
  resource.body = read_file(s.archive);
  server.serve("/dl/ZLUDA-windows-rocm6-amd64.zip", resource);
  const std::string url = server.url("/dl/ZLUDA-windows-rocm6-amd64.zip");
  const std::string h = s.home.string();
  auto malformed = run_zcuda({"--home", h, "install", "--url", url, "--sha256", "1234"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.err;
  auto wrong = run_zcuda({"--home", h, "install", "--url", url, "--sha256", std::string(64, 'c')});
  EXPECT_EQ(wrong.exit_code, 6) << wrong.err;
  EXPECT_FALSE(fs::exists(s.home / "installs" / "zluda" / "ZLUDA-windows-rocm6-amd64"));
  EXPECT_FALSE(fs::exists(s.home / "installs" / "zluda" / "ZLUDA-windows-rocm6-amd64.receipt.json"));
  EXPECT_FALSE(fs::exists(s.home / "cache" / (std::string(64, 'c') + ".partial")));
  auto right = run_zcuda({"--home", h, "install", "--url", url, "--sha256", s.sha256});
  ASSERT_EQ(right.exit_code, 0) << right.err;
  auto listed = run_zcuda({"--home", h, "--json", "install", "--list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto runtimes = json::parse(listed.out)["runtimes"];
  ASSERT_FALSE(runtimes.empty());
  EXPECT_EQ(runtimes[0]["version"], "ZLUDA-windows-rocm6-amd64");
  EXPECT_EQ(runtimes[0]["state"], "user-vouched");
  // Used by name only: it does not become what `zcuda run` takes by default (docs/cli.md).
  EXPECT_FALSE(fs::exists(s.home / "installs" / "zluda" / "current"));
  EXPECT_EQ(runtimes[0]["current"], false);
}

// An unpinned download has a bound (--max-size, MiB): a server announcing more is refused before
// a byte is written, one sending more without announcing it is stopped at the bound, and neither
// leaves a partial download behind.
TEST(InstallCli, UrlDownloadsAreBoundedAndARefusedOneLeavesNoPartial) {
  Scene s;
  HttpServer server;
  HttpResource announced;
  announced.body = std::string(3u << 20, 'z');
  server.serve("/dl/big.zip", announced);
  HttpResource unannounced = announced;
  unannounced.content_length = false;
  server.serve("/dl/endless.zip", unannounced);
  const std::string h = s.home.string();
  const std::string digest(64, 'd');
  for (const char* path : {"/dl/big.zip", "/dl/endless.zip"}) {
    auto r = run_zcuda({"--home", h, "install", "--url", server.url(path), "--sha256", digest, "--max-size", "1"});
    EXPECT_EQ(r.exit_code, 6) << path << ": " << r.err;
    EXPECT_NE((r.out + r.err).find("--max-size"), std::string::npos) << r.out << r.err;
    EXPECT_FALSE(fs::exists(s.home / "cache" / (digest + ".partial"))) << path;
    EXPECT_FALSE(fs::exists(s.home / "installs" / "zluda" / (std::string(path).substr(4, std::string(path).size() - 8)))) << path;
  }
}

// A pinned artifact whose publisher gives no size (the Linux v6, v7-preview.10) is bounded like an
// unpinned download: --max-size applies to it too, and a refused one leaves no partial.
TEST(InstallCli, APinWithoutASizeIsBoundedByMaxSize) {
  Scene s;
  HttpServer server;
  HttpResource big;
  big.body = std::string(3u << 20, 'z');
  server.serve("/dl/zluda-linux-abc.tar.gz", big);
  const std::string digest(64, 'e');
  json entry = {{"id", "zluda-nosize"},
                {"component", "zluda"},
                {"version", "v1"},
                {"os", "any"},
                {"url", server.url("/dl/zluda-linux-abc.tar.gz")},
                {"sha256", digest},
                {"archive", "tar.gz"},
                {"root", "zluda"},
                {"license", "Apache-2.0 OR MIT (test)"}};
  write_file(s.manifest, json{{"schema", 1}, {"artifacts", {entry}}}.dump(2));
  auto r = run_zcuda(s.install_args({"--max-size", "1"}));
  EXPECT_EQ(r.exit_code, 6) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("--max-size"), std::string::npos) << r.out << r.err;
  EXPECT_FALSE(fs::exists(s.home / "cache" / (digest + ".partial")));
  EXPECT_FALSE(fs::exists(s.home / "installs" / "zluda" / "v1"));
}

// The built-in stable pin, as shipped, pointed at a loopback server: no bytes but upstream's own
// have its digest, so what can be shown here is that both of its real numbers are enforced: a copy
// that ends early is incomplete (exit 7 or the size check), one of the right size but other bytes
// is refused by the digest (exit 6), and neither leaves anything installed.
TEST(InstallCli, TheStablePinsRealSizeAndDigestAreEnforced) {
  TempDir dir;
  const json shipped = json::parse(read_file(fs::path(ZCUDA_SOURCE_DIR) / "manifests" / "artifacts.json"));
  json stable;
  for (const auto& a : shipped["artifacts"]) {
    if (a["component"] == "zluda" && a["channel"] == "stable" && a["os"] == "windows") stable = a;
  }
  ASSERT_FALSE(stable.is_null());
  ASSERT_EQ(stable["version"], "v6");
  const std::uint64_t size = stable["size"].get<std::uint64_t>();
  ASSERT_EQ(size, 35506692u);
  HttpServer server;
  HttpResource short_copy;
  short_copy.body = std::string(1000, 'z');
  server.serve("/short/zluda-windows-3fe1206.zip", short_copy);
  HttpResource other_bytes;
  other_bytes.body = std::string(static_cast<std::size_t>(size), 'z');
  server.serve("/other/zluda-windows-3fe1206.zip", other_bytes);
  const fs::path home = dir / "home";
  auto install_from = [&](const std::string& path) {
    json entry = stable;
    entry["url"] = server.url(path);
    entry["os"] = "any";
    const fs::path manifest = dir / "stable.json";
    write_file(manifest, json{{"schema", 1}, {"artifacts", {entry}}}.dump(2));
    return run_zcuda({"--home", home.string(), "install", "--manifest", manifest.string(), "--no-wait"});
  };

  auto short_run = install_from("/short/zluda-windows-3fe1206.zip");
  EXPECT_NE(short_run.exit_code, 0) << short_run.out << short_run.err;
  EXPECT_NE(short_run.exit_code, 6) << "an early end is not a digest mismatch: " << short_run.err;
  EXPECT_NE(short_run.err.find("35506692"), std::string::npos) << short_run.err;

  auto other_run = install_from("/other/zluda-windows-3fe1206.zip");
  EXPECT_EQ(other_run.exit_code, 6) << other_run.out << other_run.err;
  EXPECT_NE(other_run.err.find("fda8891c6fdfaba438f2eb0f9d749ffa2c1fddbdf225be2301f0d7a25e37208a"), std::string::npos) << other_run.err;
  EXPECT_FALSE(fs::exists(home / "installs" / "zluda" / "v6"));
  EXPECT_FALSE(fs::exists(home / "installs" / "zluda" / "current"));
}

}  // namespace
}  // namespace zcuda::test
