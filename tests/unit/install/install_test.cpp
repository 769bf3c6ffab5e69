#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/launch/quarantine.hpp>

#include "support/archive_builder.hpp"
#include "support/file_url.hpp"
#include "support/file_size_limit.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::install {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A home, an archive shaped like a ZLUDA release, and a manifest pinning its digest.
struct Fixture {
  test::TempDir dir;
  home::Home home;
  fs::path archive;
  std::string sha256;
  std::uint64_t size = 0;

  explicit Fixture(std::vector<test::Spec> entries = default_entries()) {
    home = home::Home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};
    fs::create_directories(dir / "src");
    archive = dir / "src" / "zluda-test.zip";
    test::write_archive(archive, test::ArchiveType::zip, entries);
    sha256 = sha256_file(archive).value();
    size = fs::file_size(archive);
  }

  static std::vector<test::Spec> default_entries() {
    return {test::dir("zluda/"), test::file("zluda/nvcuda.dll", "nvcuda bytes"), test::file("zluda/zluda.exe", "launcher"),
            test::file("zluda/trace/nvcuda.dll", "trace shim")};
  }

  json entry(std::string id = "zluda-test", std::string version = "v1") const {
    return {{"id", id},
            {"component", "zluda"},
            {"version", version},
            {"os", "any"},
            {"url", test::file_url(archive)},
            {"sha256", sha256},
            {"size", size},
            {"archive", "zip"},
            {"root", "zluda"},
            {"license", "MIT"},
            {"expected_files", {"nvcuda.dll", "zluda.exe"}}};
  }

  manifest::Manifest manifest(std::vector<json> entries = {}) const {
    if (entries.empty()) entries.push_back(entry());
    return manifest::parse(json{{"schema", 1}, {"artifacts", entries}}.dump(), "test").value();
  }

  Result<Report> install(const Options& options = {}, std::vector<json> entries = {}) const {
    auto plan = make_plan(manifest(std::move(entries)), Selection{}, home);
    if (!plan) return std::unexpected(plan.error());
    return run(*plan, home, options);
  }

  fs::path installs() const { return home.root / "installs"; }
  fs::path version_dir() const { return installs() / "zluda" / "v1"; }

  // Names in the component folder other than finished versions, receipts and the pointer.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(installs() / "zluda", ec)) {
      auto name = e.path().filename().string();
      if (name == "current" || name == "v1" || name == "v2" || name.ends_with(".receipt.json")) continue;
      names.push_back(name);
    }
    return names;
  }
};

Outcome only_outcome(const Result<Report>& r) {
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return Outcome{};
  }
  EXPECT_EQ(r->outcomes.size(), 1u);
  return r->outcomes.front();
}

TEST(InstallPlan, PicksByOsChannelAndOptional) {
  test::TempDir dir;
  home::Home home{dir.path(), dir / "c", dir / "s", dir / "l", home::ChosenBy::flag};
  auto m = manifest::load_embedded().value();
  Selection windows;
  windows.os = platform::Os::windows;
  auto plan = make_plan(m, windows, home);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->items.size(), 4u);
  EXPECT_TRUE(plan->items[0].selected);
  EXPECT_FALSE(plan->items[1].selected);
  EXPECT_NE(plan->items[1].skip_reason.find("--channel latest"), std::string::npos);
  EXPECT_FALSE(plan->items[2].selected);
  EXPECT_NE(plan->items[2].skip_reason.find("--with-libtorch"), std::string::npos);
  EXPECT_EQ(plan->items[0].destination, dir.path() / "installs" / "zluda" / "v6");

  windows.channel = manifest::Channel::latest;
  windows.with_libtorch = true;
  plan = make_plan(m, windows, home);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->items[0].selected);
  EXPECT_TRUE(plan->items[1].selected);
  EXPECT_TRUE(plan->items[2].selected);

  windows.channel = manifest::Channel::stable;
  windows.with_libtorch = false;
  windows.only = {"libtorch"};
  plan = make_plan(m, windows, home);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->items[0].selected);
  EXPECT_TRUE(plan->items[2].selected) << "--only names an optional artifact explicitly";

  windows.only = {"nonsense"};
  plan = make_plan(m, windows, home);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::usage);
}

TEST(InstallPlan, LinuxStableIsUpstreamsV6AndLatestHasNothingPinned) {
  test::TempDir dir;
  home::Home home{dir.path(), dir / "c", dir / "s", dir / "l", home::ChosenBy::flag};
  Selection linux;
  linux.os = platform::Os::linux;
  auto plan = make_plan(manifest::load_embedded().value(), linux, home);
  ASSERT_TRUE(plan) << plan.error().message;
  std::vector<std::string> selected;
  for (const auto& item : plan->items) {
    if (item.selected) selected.push_back(item.artifact.id);
  }
  EXPECT_EQ(selected, std::vector<std::string>{"zluda-v6-linux"});

  // v7-preview.10's Linux archive has no digest from any source: nothing for --channel latest.
  linux.channel = manifest::Channel::latest;
  auto latest = make_plan(manifest::load_embedded().value(), linux, home);
  ASSERT_TRUE(latest) << latest.error().message;
  for (const auto& item : latest->items) EXPECT_FALSE(item.selected) << item.artifact.id;
}

// Upstream's Linux archive as xtask packs it (vosen/ZLUDA@3fe12063 xtask/src/main.rs zip():
// tar entries zluda/<lib file>, and each crate's [package.metadata.zluda] linux_symlinks as
// symbolic links, relative to the link's folder). A stand-in with that layout, pinned without a
// size as the real one is, installs with its links working.
TEST(Install, UpstreamsLinuxLayoutWithItsLinksInstalls) {
  test::TempDir dir;
  home::Home home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};
  const fs::path archive = dir / "src" / "zluda-linux-3fe12063.tar.gz";
  fs::create_directories(archive.parent_path());
  test::write_archive(archive, test::ArchiveType::tar_gz,
                      {test::file("zluda/libnvcuda.so", "driver", 0755), test::symlink("zluda/libcuda.so", "libnvcuda.so"),
                       test::symlink("zluda/libcuda.so.1", "libnvcuda.so"), test::file("zluda/libnvml.so", "nvml", 0755),
                       test::symlink("zluda/libnvidia-ml.so.1", "libnvml.so"), test::file("zluda/libzluda_ld.so", "audit", 0755),
                       test::symlink("zluda/zluda_ld", "libzluda_ld.so"), test::symlink("zluda/trace/zluda_ld", "../libzluda_ld.so"),
                       test::file("zluda/libzluda_trace.so", "trace", 0755), test::symlink("zluda/trace/libcuda.so.1", "../libzluda_trace.so"),
                       test::symlink("zluda/trace_nvidia/libcuda.so.1", "../libzluda_trace.so")});
  auto shipped = manifest::load_embedded().value();
  const auto pinned = std::find_if(shipped.artifacts.begin(), shipped.artifacts.end(), [](const auto& a) { return a.id == "zluda-v6-linux"; });
  ASSERT_NE(pinned, shipped.artifacts.end());
  json entry = {{"id", "zluda-v6-linux"},
                {"component", "zluda"},
                {"version", "v6"},
                {"os", "any"},
                {"url", test::file_url(archive)},
                {"sha256", sha256_file(archive).value()},
                {"archive", "tar.gz"},
                {"root", pinned->root.value_or("")},
                {"license", "MIT"},
                {"expected_files", pinned->expected_files}};
  auto plan = make_plan(manifest::parse(json{{"schema", 1}, {"artifacts", {entry}}}.dump(), "test").value(), Selection{}, home);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto& outcome = only_outcome(run(*plan, home, Options{}));
  ASSERT_EQ(outcome.state, State::installed) << (outcome.error ? outcome.error->message : "");
  const fs::path v6 = home.root / "installs" / "zluda" / "v6";
  EXPECT_EQ(test::read_file(v6 / "libcuda.so.1"), "driver");
  EXPECT_EQ(test::read_file(v6 / "trace" / "libcuda.so.1"), "trace");
  EXPECT_EQ(test::read_file(v6 / "trace_nvidia" / "libcuda.so.1"), "trace");
  EXPECT_EQ(test::read_file(v6 / "zluda_ld"), "audit");
#ifndef _WIN32
  EXPECT_EQ(fs::read_symlink(v6 / "libcuda.so.1"), "libnvcuda.so");
  EXPECT_EQ(fs::read_symlink(v6 / "trace" / "zluda_ld"), "../libzluda_ld.so");
#endif
  // The receipt covers the links: a second run finds the install intact and fetches nothing.
  const auto& again = only_outcome(run(*plan, home, Options{}));
  EXPECT_EQ(again.state, State::already_installed) << again.reason;
}

TEST(Install, InstallsWithReceiptAndPointerThenRerunFetchesNothing) {
  Fixture f;
  const auto& first = only_outcome(f.install());
  ASSERT_EQ(first.state, State::installed) << (first.error ? first.error->message : "");
  EXPECT_EQ(test::read_file(f.version_dir() / "nvcuda.dll"), "nvcuda bytes");
  EXPECT_EQ(test::read_file(f.version_dir() / "trace" / "nvcuda.dll"), "trace shim");
  EXPECT_EQ(test::read_file(f.installs() / "zluda" / "current"), "v1\n");
  EXPECT_EQ(first.files, 3u);  // three files; the archive has no entry for trace/ itself

  auto receipt = json::parse(test::read_file(f.installs() / "zluda" / "v1.receipt.json"));
  EXPECT_EQ(receipt["sha256"], f.sha256);
  EXPECT_EQ(receipt["manifest_entry"]["id"], "zluda-test");
  bool saw_driver = false;
  for (const auto& file : receipt["files"]) {
    if (file["path"] == "nvcuda.dll") {
      saw_driver = true;
      EXPECT_EQ(file["size"], 12);
      EXPECT_EQ(file["sha256"], sha256_file(f.version_dir() / "nvcuda.dll").value());
    }
  }
  EXPECT_TRUE(saw_driver);

  // No source and no cache: a second run can only succeed without fetching.
  fs::remove(f.archive);
  fs::remove_all(f.home.cache);
  const auto& second = only_outcome(f.install());
  EXPECT_EQ(second.state, State::already_installed) << (second.error ? second.error->message : "");
  EXPECT_TRUE(f.leftovers().empty());
}

TEST(Install, RepairReHashesAndRestoresATamperedFile) {
  Fixture f;
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  test::write_file(f.version_dir() / "nvcuda.dll", "NVCUDA BYTES");  // same size, other bytes

  // The fast check compares sizes only; --repair reads every byte.
  EXPECT_EQ(only_outcome(f.install()).state, State::already_installed);
  fs::remove(f.archive);  // the verified archive in the cache is what repair uses
  Options repair;
  repair.repair = true;
  const auto& repaired = only_outcome(f.install(repair));
  ASSERT_EQ(repaired.state, State::repaired) << (repaired.error ? repaired.error->message : "");
  EXPECT_EQ(repaired.repaired_files, std::vector<std::string>{"nvcuda.dll"});
  EXPECT_EQ(test::read_file(f.version_dir() / "nvcuda.dll"), "nvcuda bytes");
  EXPECT_EQ(only_outcome(f.install(repair)).state, State::already_installed);
  EXPECT_TRUE(f.leftovers().empty());
}

TEST(Install, AMissingFileIsNoticedWithoutRepairAndReinstalled) {
  Fixture f;
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  fs::remove(f.version_dir() / "zluda.exe");
  const auto& again = only_outcome(f.install());
  EXPECT_EQ(again.state, State::repaired);
  EXPECT_EQ(again.repaired_files, std::vector<std::string>{"zluda.exe"});
  EXPECT_TRUE(fs::exists(f.version_dir() / "zluda.exe"));
}

// What an antivirus leaves: a file deleted, another emptied. Both are named, and detect's
// finding carries the exclusion advice; an uninstalled (removed) version is no suspect.
TEST(Install, MissingOrEmptiedFilesAreQuarantineSuspects) {
  Fixture f;
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  EXPECT_TRUE(quarantine_suspects(f.home, "zluda", "v1").empty());
  EXPECT_FALSE(launch::quarantine_finding(f.home));
  fs::remove(f.version_dir() / "zluda.exe");
  { std::ofstream truncate(f.version_dir() / "nvcuda.dll", std::ios::binary | std::ios::trunc); }
  const auto suspects = quarantine_suspects_of_current(f.home, "zluda");
  EXPECT_EQ(suspects, (std::vector<std::string>{"nvcuda.dll", "zluda.exe"}));
  const auto finding = launch::quarantine_finding(f.home);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->code, "runtime-files-quarantined");
  EXPECT_NE(finding->message.find("nvcuda.dll, zluda.exe"), std::string::npos) << finding->message;
  EXPECT_NE(finding->hint.find("exclusions"), std::string::npos) << finding->hint;
  fs::remove_all(f.version_dir());
  EXPECT_TRUE(quarantine_suspects(f.home, "zluda", "v1").empty());
}

TEST(Install, RemoveByIdOrComponentIsReceiptGuided) {
  Fixture f;
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  auto missing = remove("nothing-like-it", f.home, {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
  EXPECT_NE(missing.error().hint.find("zluda-test"), std::string::npos);

  auto removed = remove("zluda-test", f.home, {});
  ASSERT_TRUE(removed) << removed.error().message;
  ASSERT_EQ(removed->outcomes.size(), 1u);
  EXPECT_EQ(removed->outcomes[0].state, State::removed);
  EXPECT_FALSE(fs::exists(f.version_dir()));
  EXPECT_FALSE(fs::exists(f.installs() / "zluda" / "current"));
  EXPECT_FALSE(fs::exists(f.installs() / "zluda" / "v1.receipt.json"));

  // Two versions, removed together by component name.
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  auto v2 = f.entry("zluda-test-2", "v2");
  v2["channel"] = "latest";
  auto v1 = f.entry();
  v1["channel"] = "stable";
  Selection latest;
  latest.channel = manifest::Channel::latest;
  auto plan = make_plan(f.manifest({v1, v2}), latest, f.home);
  ASSERT_TRUE(plan);
  ASSERT_TRUE(run(*plan, f.home, {}));
  EXPECT_EQ(test::read_file(f.installs() / "zluda" / "current"), "v2\n");
  removed = remove("zluda", f.home, {});
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->outcomes.size(), 2u);
  EXPECT_FALSE(fs::exists(f.version_dir()));
  EXPECT_FALSE(fs::exists(f.installs() / "zluda" / "v2"));
}

TEST(Install, HostileArchiveInstallsNothing) {
  Fixture f({test::file("zluda/nvcuda.dll", "x"), test::file("zluda/zluda.exe", "x"), test::file("../../evil.dll", "x")});
  const auto& out = only_outcome(f.install());
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::integrity);
  EXPECT_FALSE(fs::exists(f.version_dir()));
  EXPECT_FALSE(fs::exists(f.installs() / "zluda" / "current"));
  EXPECT_TRUE(f.leftovers().empty());
}

TEST(Install, MissingExpectedFileInstallsNothing) {
  Fixture f({test::file("zluda/nvcuda.dll", "x")});
  const auto& out = only_outcome(f.install());
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::invalid_input);
  EXPECT_NE(out.error->message.find("zluda.exe"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.version_dir()));
  EXPECT_TRUE(f.leftovers().empty());
}

TEST(Install, DigestMismatchInstallsNothing) {
  Fixture f;
  auto e = f.entry();
  e["sha256"] = std::string(64, '0');
  e.erase("size");
  const auto& out = only_outcome(f.install({}, {e}));
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::integrity);
  EXPECT_FALSE(fs::exists(f.version_dir()));
}

TEST(Install, FullDiskDuringExtractionLeavesNothingVisible) {
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  Fixture f({test::file("zluda/nvcuda.dll", std::string(1u << 20, 'n')), test::file("zluda/zluda.exe", "x")});
  // Put the verified archive in the cache first, so only extraction writes under the limit.
  fs::create_directories(f.home.cache);
  fs::copy_file(f.archive, f.home.cache / f.sha256);
  bool limited = false;
  auto r = [&] {
    test::FileSizeLimit limit(256 * 1024);
    limited = limit.active();
    return f.install();
  }();
  ASSERT_TRUE(limited);
  const auto& out = only_outcome(r);
  ASSERT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::io);
  EXPECT_NE(out.error->hint.find("disk is full"), std::string::npos) << out.error->message;
  EXPECT_FALSE(fs::exists(f.version_dir()));
  EXPECT_TRUE(f.leftovers().empty());
  // With room again, the same command completes.
  EXPECT_EQ(only_outcome(f.install()).state, State::installed);
}

TEST(Install, LeftoversOfAKilledRunAreRemoved) {
  Fixture f;
  fs::create_directories(f.installs() / "zluda" / ".tmp-v1-99999-0" / "half");
  test::write_file(f.installs() / "zluda" / "current.tmp-123", "v");
  test::write_file(f.installs() / "zluda" / "v1.receipt.json.tmp-7", "{");
  ASSERT_EQ(only_outcome(f.install()).state, State::installed);
  EXPECT_TRUE(f.leftovers().empty());
}

TEST(Install, InterruptedBeforeStartInstallsNothing) {
  Fixture f;
  std::atomic<bool> cancel{true};
  Options options;
  options.cancel = &cancel;
  const auto& out = only_outcome(f.install(options));
  EXPECT_EQ(out.state, State::failed);
  EXPECT_EQ(out.error->kind, ErrorKind::interrupted);
  EXPECT_FALSE(fs::exists(f.version_dir()));
}

TEST(Install, DryRunWritesNothing) {
  Fixture f;
  Options options;
  options.dry_run = true;
  const auto& out = only_outcome(f.install(options));
  EXPECT_EQ(out.state, State::planned);
  EXPECT_FALSE(fs::exists(f.home.root));
}

TEST(Install, SingleFileArtifactIsCopiedUnderItsName) {
  Fixture f;
  test::write_file(f.dir / "src" / "tool.exe", "a tool");
  auto e = f.entry("tool", "1.0");
  e["component"] = "tool";
  e["url"] = test::file_url(f.dir / "src" / "tool.exe");
  e["sha256"] = sha256_file(f.dir / "src" / "tool.exe").value();
  e["size"] = 6;
  e["archive"] = "none";
  e.erase("root");
  e["expected_files"] = {"tool.exe"};
  const auto& out = only_outcome(f.install({}, {e}));
  ASSERT_EQ(out.state, State::installed) << (out.error ? out.error->message : "");
  EXPECT_EQ(test::read_file(f.installs() / "tool" / "1.0" / "tool.exe"), "a tool");
}

}  // namespace
}  // namespace zcuda::install
