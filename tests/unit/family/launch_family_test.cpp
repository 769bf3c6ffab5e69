// What a launch does with the runtime's family (launch::prepare_launch on Windows-shaped folders
// of the MinGW-built stand-ins): the compute capability the program sees and why.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <zcuda/install/adopt.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/stage/stage.hpp>

#include "family_parts.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using platform::Os;

using family::part;
using family::put;

// A runtime folder of one family, and a program folder beside it.
class LaunchFamily : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(part("upstream_nvcuda.dll"))) GTEST_SKIP() << "MinGW-w64 was not found at configure time";
    family::make_upstream(upstream, false);
    family::make_lshqqytiger(lshqqytiger, false);
    put("program.exe", app / "app.exe");
  }
  Options options(const fs::path& runtime) {
    Options o;
    o.program = app / "app.exe";
    o.runtime.dir = runtime;
    o.os = Os::windows;
    o.elevated = false;
    o.direct = true;
    o.tf32_override = false;
    return o;
  }
  static bool sets(const LaunchPlan& plan, const std::string& name) {
    for (const auto& c : plan.changes) {
      if (c.name == name) return true;
    }
    return false;
  }
  test::TempDir dir;
  fs::path upstream = dir.path() / "upstream", lshqqytiger = dir.path() / "lshqqytiger", app = dir.path() / "app";
};

TEST_F(LaunchFamily, TheFamilysOwnDefaultWhenNothingIsAsked) {
  auto plan = prepare_launch(options(upstream), {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime_family.family, family::Family::upstream);
  EXPECT_FALSE(sets(*plan, "ZLUDA_CC"));
  EXPECT_EQ(plan->compute_capability.value, family::facts(family::Family::upstream)->default_cc);
  EXPECT_EQ(plan->compute_capability.source, "family default");
  EXPECT_NE(plan->compute_capability.why.find("upstream"), std::string::npos) << plan->compute_capability.why;
  const auto j = to_json(*plan);
  EXPECT_EQ(j["runtime_family"]["family"], "upstream");
  EXPECT_FALSE(j["runtime_family"]["evidence"].empty());
  EXPECT_EQ(j["compute_capability"]["source"], "family default");

  auto lsh = prepare_launch(options(lshqqytiger), {});
  ASSERT_TRUE(lsh) << lsh.error().message;
  EXPECT_EQ(lsh->compute_capability.value, "8.8");
  EXPECT_FALSE(sets(*lsh, "ZLUDA_CC"));
}

TEST_F(LaunchFamily, AnUnknownRuntimeGetsNoCapabilityAndStillLaunches) {
  const fs::path unknown = dir.path() / "unknown";
  put("upstream_library.dll", unknown / "nvcuda.dll");  // a ZLUDA name, nothing that tells the family
  auto plan = prepare_launch(options(unknown), {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime_family.family, family::Family::unknown);
  EXPECT_FALSE(plan->compute_capability.value.has_value());
  EXPECT_EQ(plan->compute_capability.source, "unknown");
  EXPECT_FALSE(sets(*plan, "ZLUDA_CC"));
}

TEST_F(LaunchFamily, ZludaCcIsSetOnlyWhenAsked) {
  auto o = options(upstream);
  o.zluda_cc = "8.9";
  auto plan = prepare_launch(o, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("ZLUDA_CC"), "8.9");
  EXPECT_EQ(plan->compute_capability.value, "8.9");
  EXPECT_EQ(plan->compute_capability.source, "--zluda-cc");
  // lshqqytiger's build reads no variable: it still reports its own, and print-env says so.
  auto lsh = prepare_launch(
      [&] {
        auto l = options(lshqqytiger);
        l.zluda_cc = "8.9";
        return l;
      }(),
      {});
  ASSERT_TRUE(lsh);
  EXPECT_EQ(lsh->compute_capability.value, "8.8");
  EXPECT_NE(lsh->compute_capability.why.find("does not read"), std::string::npos) << lsh->compute_capability.why;
}

TEST_F(LaunchFamily, TheUsersOwnVariablesAreNeverOverridden) {
  // Upstream reads ZLUDA_SM when ZLUDA_CC is unset: zcuda must not set ZLUDA_CC over it.
  auto plan = prepare_launch(options(upstream), {{"ZLUDA_SM", "7.5"}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_FALSE(sets(*plan, "ZLUDA_CC"));
  EXPECT_EQ(plan->environment.at("ZLUDA_SM"), "7.5");
  EXPECT_EQ(plan->compute_capability.value, "7.5");
  EXPECT_EQ(plan->compute_capability.source, "user");
  EXPECT_NE(plan->compute_capability.why.find("ZLUDA_SM=7.5"), std::string::npos);

  // --zluda-cc against the user's own: refused, nothing overridden.
  auto o = options(upstream);
  o.zluda_cc = "8.9";
  auto refused = prepare_launch(o, {{"ZLUDA_SM", "7.5"}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
  EXPECT_NE(refused.error().message.find("ZLUDA_SM=7.5"), std::string::npos) << refused.error().message;
  // The same value as the user's ZLUDA_CC asks for nothing new.
  auto same = prepare_launch(o, {{"ZLUDA_CC", "8.9"}});
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_FALSE(sets(*same, "ZLUDA_CC"));
  // --env ZLUDA_CC is the user's too: what the program sees.
  auto env = options(upstream);
  env.overrides = {{"ZLUDA_CC", "9.0"}};
  auto by_env = prepare_launch(env, {});
  ASSERT_TRUE(by_env);
  EXPECT_EQ(by_env->compute_capability.value, "9.0");
  EXPECT_EQ(by_env->compute_capability.source, "user");
}

// zluda_common/src/constants.rs: ZLUDA_CC, else ZLUDA_SM only when ZLUDA_CC is absent; an empty
// ZLUDA_CC is read, does not parse, and gives the default.
TEST_F(LaunchFamily, AnEmptyZludaCcGivesTheDefaultAndZludaSmGoesUnread) {
  auto plan = prepare_launch(options(upstream), {{"ZLUDA_CC", ""}, {"ZLUDA_SM", "7.5"}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->compute_capability.value, family::facts(family::Family::upstream)->default_cc);
  EXPECT_EQ(plan->compute_capability.source, "user");
  EXPECT_NE(plan->compute_capability.why.find("does not read your ZLUDA_SM"), std::string::npos) << plan->compute_capability.why;
  EXPECT_FALSE(sets(*plan, "ZLUDA_CC"));
  // --zluda-cc would replace the user's (empty) ZLUDA_CC: refused.
  auto o = options(upstream);
  o.zluda_cc = "8.6";
  auto refused = prepare_launch(o, {{"ZLUDA_CC", ""}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::usage);
}

// Upstream's driver before v6-preview.63 (vosen/ZLUDA#620, e0703209) reads no variable and
// reports 8.8; the release comes from the commit the driver embeds (release_commits).
TEST_F(LaunchFamily, ReleasesBeforeV6Preview63ReadNoVariable) {
  auto with_commit = [&](const char* commit) {
    fs::remove_all(upstream);
    family::make_upstream(upstream, false);
    std::ofstream(upstream / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtin" << commit << "gfx1100";
  };
  with_commit("dcc6bb8fdad2add9e33f8d5206560379ee07a3af");  // v6-preview.62
  auto o = options(upstream);
  o.zluda_cc = "8.6";
  auto old = prepare_launch(o, {});
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->runtime_family.release, "v6-preview.62");
  EXPECT_EQ(old->compute_capability.value, "8.8");
  EXPECT_NE(old->compute_capability.why.find("does not read"), std::string::npos) << old->compute_capability.why;
  EXPECT_NE(old->compute_capability.why.find("v6-preview.63"), std::string::npos) << old->compute_capability.why;
  auto user = prepare_launch(options(upstream), {{"ZLUDA_SM", "7.5"}});
  ASSERT_TRUE(user) << user.error().message;
  EXPECT_EQ(user->compute_capability.value, "8.8");
  auto plain = prepare_launch(options(upstream), {});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_NE(plain->compute_capability.why.find("reads none"), std::string::npos) << plain->compute_capability.why;

  with_commit("e07032098bdd3de8ec31ffd1ed5cdf96d55caae8");  // v6-preview.63
  auto first = prepare_launch(o, {});
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->runtime_family.release, "v6-preview.63");
  EXPECT_EQ(first->compute_capability.value, "8.6");
  EXPECT_EQ(first->compute_capability.source, "--zluda-cc");
}

// An lshqqytiger cuBLAS copied into the program's folder (as ComfyUI-Zluda does) and upstream's
// runtime: refused before anything starts, with exit code 14; the matching family launches.
TEST_F(LaunchFamily, AProgramFolderOfTheOtherFamilyIsRefused) {
  put("lshqqytiger_cublas.dll", app / "cublas64_11.dll");
  auto plan = prepare_launch(options(upstream), {});
  ASSERT_TRUE(plan) << plan.error().message;
  auto refused = check_families(*plan, Os::windows);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::mixed_family);
  EXPECT_EQ(exit_code(refused.error().kind), 14);
  EXPECT_NE(refused.error().message.find("lshqqytiger"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("cublas64_11.dll"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().hint.find("--runtime-dir"), std::string::npos);

  auto same = prepare_launch(options(lshqqytiger), {});
  ASSERT_TRUE(same);
  EXPECT_TRUE(check_families(*same, Os::windows));
}

// A torch/lib that ComfyUI-Zluda's installer patched with lshqqytiger's cuBLAS, named as one of
// the program's library folders (as a profile does): the program's own folder is clean, and the
// launch with upstream's runtime is still refused, naming the file in torch/lib.
TEST_F(LaunchFamily, APatchedTorchLibTheProfileNamesIsChecked) {
  const fs::path torch_lib = dir.path() / "venv" / "Lib" / "site-packages" / "torch" / "lib";
  put("lshqqytiger_cublas.dll", torch_lib / "cublas64_11.dll");
  auto o = options(upstream);
  auto unchecked = prepare_launch(o, {});
  ASSERT_TRUE(unchecked);
  EXPECT_TRUE(check_families(*unchecked, Os::windows));

  o.library_folders = {torch_lib};
  auto plan = prepare_launch(o, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(program_library_folders(*plan), (std::vector<fs::path>{app, torch_lib}));
  auto refused = check_families(*plan, Os::windows);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::mixed_family);
  EXPECT_NE(refused.error().message.find("cublas64_11.dll"), std::string::npos) << refused.error().message;
}

// Staging (zcuda stage, a profile's placement, verify --app's) refuses what run refuses: upstream's
// files placed beside lshqqytiger's leave the folder mixed for every later launch. Nothing changes.
TEST_F(LaunchFamily, StagingUpstreamBesideTheOtherFamilyIsRefusedAndChangesNothing) {
  put("lshqqytiger_cublas.dll", app / "cublas64_11.dll");
  put("lshqqytiger_cusparse.dll", app / "cusparse64_11.dll");
  auto files_of = [](const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) names.push_back(entry.path().lexically_relative(folder).generic_string());
    std::ranges::sort(names);
    return names;
  };
  const auto before = files_of(app);
  stage::PlanOptions staging;
  staging.app = app / "app.exe";
  staging.runtime_dir = upstream;
  staging.os = Os::windows;
  staging.all = true;
  auto refused = stage::stage(staging);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::mixed_family);
  EXPECT_NE(refused.error().message.find("cublas64_11.dll"), std::string::npos) << refused.error().message;
  EXPECT_EQ(files_of(app), before);

  // A profile's name map into a patched torch/lib, as verify --app and run --profile place.
  const fs::path torch_lib = dir.path() / "venv" / "Lib" / "site-packages" / "torch" / "lib";
  put("lshqqytiger_cusparse.dll", torch_lib / "cusparse64_11.dll");
  put("nvidia_cublas.dll", torch_lib / "cublas64_11.dll");
  stage::PlanOptions mapped;
  mapped.app = torch_lib;
  mapped.runtime_dir = upstream;
  mapped.os = Os::windows;
  mapped.names = {{"cublas64_11.dll", "cublas64_11.dll", std::nullopt}};
  auto refused_map = stage::stage(mapped);
  ASSERT_FALSE(refused_map);
  EXPECT_EQ(refused_map.error().kind, ErrorKind::mixed_family);
  EXPECT_FALSE(fs::exists(torch_lib / ".zcuda-stage"));

  // The same family stages.
  staging.runtime_dir = lshqqytiger;
  EXPECT_TRUE(stage::stage(staging));
}

TEST_F(LaunchFamily, AnUnknownRuntimeDoesNotBlockByItself) {
  put("lshqqytiger_cublas.dll", app / "cublas64_11.dll");
  const fs::path unknown = dir.path() / "unknown";
  put("upstream_library.dll", unknown / "nvcuda.dll");
  auto plan = prepare_launch(options(unknown), {});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->runtime_family.family, family::Family::unknown);
  EXPECT_TRUE(check_families(*plan, Os::windows));
}

// An installed version as `zcuda install` leaves it: installs/zluda/<version>/ and its receipt
// beside it. The nvcuda.dll is zeros of v6's size: only the receipt can make it v6.
class InstalledFamily : public LaunchFamily {
 protected:
  void SetUp() override {
    LaunchFamily::SetUp();
    if (IsSkipped()) return;
    family::write_zeros(version_dir / "nvcuda.dll", known.size);
    put("program.exe", version_dir / "zluda.exe");
    receipt.id = "zluda-" + version + "-windows";
    receipt.component = "zluda";
    receipt.version = version;
    receipt.files = {entry("nvcuda.dll", known.size, known.sha256), entry("zluda.exe", 1, "0")};
    write(receipt);
  }
  static archive::WrittenEntry entry(std::string path, std::uint64_t size, std::string sha256) {
    archive::WrittenEntry e;
    e.path = std::move(path);
    e.size = size;
    e.sha256 = std::move(sha256);
    return e;
  }
  home::Home home_at() const {
    home::Home h;
    h.root = home;
    return h;
  }
  void write(const install::Receipt& r) { ASSERT_TRUE(install::write_receipt(installs / (version + ".receipt.json"), r)); }
  RuntimeLocation installed() const { return RuntimeLocation{version_dir, RuntimeChoice::installed, version}; }
  const family::KnownFile& known = family::known_file("nvcuda.dll", "v6");
  const std::string version = "v6";
  fs::path home = dir.path() / "home", installs = home / "installs" / "zluda", version_dir = installs / version;
  install::Receipt receipt;
};

TEST_F(InstalledFamily, TheReceiptsDigestsNameTheReleaseWithoutReadingTheFile) {
  auto o = options(version_dir);
  o.runtime = installed();
  auto plan = prepare_launch(o, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime_family.family, family::Family::upstream);
  EXPECT_EQ(plan->runtime_family.release, "v6");
  EXPECT_EQ(plan->compute_capability.source, "family default");
  EXPECT_EQ(plan->compute_capability.value, "8.8") << "v6 predates upstream's 8.5 default";
  EXPECT_NE(plan->compute_capability.why.find("in release v6"), std::string::npos) << plan->compute_capability.why;

  // The same folder given with --runtime-dir has no receipt: its bytes are read, and zeros are no release.
  o.runtime = RuntimeLocation{version_dir, RuntimeChoice::runtime_dir_flag, std::nullopt};
  auto by_folder = prepare_launch(o, {});
  ASSERT_TRUE(by_folder) << by_folder.error().message;
  EXPECT_EQ(by_folder->runtime_family.family, family::Family::unknown);
  EXPECT_FALSE(by_folder->runtime_family.release);
}

TEST_F(InstalledFamily, AReceiptOfAnotherSizeOrVersionIsNotBelieved) {
  receipt.files[0].size = known.size + 1;
  write(receipt);
  EXPECT_EQ(runtime_family(installed(), Os::windows).family, family::Family::unknown);
  EXPECT_TRUE(recorded_install(installed()).files.contains("nvcuda.dll"));  // read, but not believed at another size

  receipt.files[0].size = known.size;
  receipt.version = "v7-preview.10";  // a copied receipt describes other bytes
  write(receipt);
  EXPECT_TRUE(recorded_install(installed()).files.empty());
  EXPECT_FALSE(recorded_install(installed()).release);
  EXPECT_EQ(runtime_family(installed(), Os::windows).family, family::Family::unknown);
}

TEST_F(InstalledFamily, FilesInTheArchivesZludaFolderAreKeyedFromThatFolder) {
  const fs::path inner = version_dir / "zluda";
  family::write_zeros(inner / "nvcuda.dll", known.size);
  receipt.files = {entry("zluda/nvcuda.dll", known.size, known.sha256), entry("README.txt", 1, "0")};
  write(receipt);
  const RuntimeLocation location{inner, RuntimeChoice::installed, version};
  const auto recorded = recorded_install(location);
  ASSERT_EQ(recorded.files.size(), 1u);
  EXPECT_EQ(recorded.files.begin()->first, "nvcuda.dll");
  EXPECT_EQ(runtime_family(location, Os::windows).release, "v6");
}

TEST_F(InstalledFamily, TheInstalledRuntimeIsNamedWithItsFamily) {
  auto none = installed_runtime(home_at(), Os::windows);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(*none);

  ASSERT_TRUE(platform::write_file_atomic(installs / "current", version + "\n"));
  auto found = installed_runtime(home_at(), Os::windows);
  ASSERT_TRUE(found && *found) << (found ? "none" : found.error().message);
  EXPECT_EQ((*found)->version, version);
  EXPECT_EQ((*found)->family.family, family::Family::upstream);
  EXPECT_EQ((*found)->family.release, "v6");
}

// An upstream runtime no known digest names: the receipt's release is believed while the driver
// keeps the size it recorded, so a launch does not read the whole driver for its commit.
class ReceiptRelease : public InstalledFamily {
 protected:
  void SetUp() override {
    InstalledFamily::SetUp();
    if (IsSkipped()) return;
    fs::remove_all(pinned_dir);
    family::make_upstream(pinned_dir, false);
    pinned.id = "zluda-v7-preview.10-windows";
    pinned.component = "zluda";
    pinned.version = "v7-preview.10";
    pinned.files = {entry("nvcuda.dll", fs::file_size(pinned_dir / "nvcuda.dll"), std::string(64, '0'))};
    ASSERT_TRUE(install::write_receipt(installs / "v7-preview.10.receipt.json", pinned));
  }
  static bool has_line(const family::Identity& identity, const std::string& text) {
    for (const auto& line : identity.evidence) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  RuntimeLocation location() const { return RuntimeLocation{pinned_dir, RuntimeChoice::installed, "v7-preview.10"}; }
  fs::path pinned_dir = installs / "v7-preview.10";
  install::Receipt pinned;
};

TEST_F(ReceiptRelease, APinnedArchivesVersionIsTheRelease) {
  const auto identity = runtime_family(location(), Os::windows);
  EXPECT_EQ(identity.family, family::Family::upstream);
  EXPECT_EQ(identity.release, "v7-preview.10");
  EXPECT_TRUE(has_line(identity, "its install receipt names release v7-preview.10 (the pinned archive it was installed from)"));

  // A driver replaced since (another size) is read again: the stand-in embeds no tagged commit.
  std::ofstream(pinned_dir / "nvcuda.dll", std::ios::binary | std::ios::app) << "another build";
  const auto replaced = runtime_family(location(), Os::windows);
  EXPECT_EQ(replaced.family, family::Family::upstream);
  EXPECT_FALSE(replaced.release);
}

TEST_F(ReceiptRelease, AVouchedArchiveKeepsWhatItsInstallFound) {
  pinned.entry = {{"user_vouched", true}};
  ASSERT_TRUE(install::write_receipt(installs / "v7-preview.10.receipt.json", pinned));
  EXPECT_FALSE(runtime_family(location(), Os::windows).release) << "a user-vouched version's name is not a release";

  pinned.family = {{"family", "upstream"}, {"release", "v6"}, {"evidence", {"found at install"}}};
  ASSERT_TRUE(install::write_receipt(installs / "v7-preview.10.receipt.json", pinned));
  auto o = options(pinned_dir);
  o.runtime = location();
  auto plan = prepare_launch(o, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime_family.release, "v6");
  EXPECT_TRUE(has_line(plan->runtime_family, "(identified when it was installed)"));
  EXPECT_EQ(plan->compute_capability.value, "8.8") << "v6 predates upstream's 8.5 default";
}

TEST_F(ReceiptRelease, AnAdoptedFolderKeepsTheReleaseItsCommitNamed) {
  const fs::path app_zluda = dir.path() / "ComfyUI" / "zluda";
  family::make_upstream(app_zluda, false);
  std::ofstream(app_zluda / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtin3fe12063f4b864f39376718bb212c6b80a55cab3gfx1100";
  auto adopted = install::adopt(app_zluda, "comfy", home_at(), Os::windows);
  ASSERT_TRUE(adopted) << adopted.error().message;
  EXPECT_EQ(adopted->identity.release, "v6");

  auto located = locate_adopted("comfy", home_at());
  ASSERT_TRUE(located && *located) << (located ? "none" : located.error().message);
  const auto identity = runtime_family(**located, Os::windows);
  EXPECT_EQ(identity.release, "v6");
  EXPECT_TRUE(has_line(identity, "(identified when it was adopted)"));
  EXPECT_FALSE(has_line(identity, "was built from commit")) << "the driver is not read again";

  // Another folder given with the adoption's receipt is not described by it.
  RuntimeLocation elsewhere = **located;
  elsewhere.dir = pinned_dir;
  EXPECT_TRUE(recorded_install(elsewhere).files.empty());
}

// An adopted folder of v7-preview.10 or .11 (newer than the tags read) is identified by the commit
// its driver embeds, and reports 8.5 (after #670).
TEST_F(ReceiptRelease, AdoptedFoldersOfTheNewestPreviewsAreIdentified) {
  for (const auto& [commit, release] : {std::pair{"9c8b43f242985150f86a7f485218b7b82c3e96ca", "v7-preview.10"},
                                        std::pair{"ee2f25a180099fa42f36b2346732e1f2470a03ad", "v7-preview.11"}}) {
    const fs::path app_zluda = dir.path() / release / "zluda";
    family::make_upstream(app_zluda, true);
    std::ofstream(app_zluda / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtin" << commit << "gfx1100";
    auto adopted = install::adopt(app_zluda, std::string("app-") + release, home_at(), Os::windows);
    ASSERT_TRUE(adopted) << adopted.error().message;
    EXPECT_EQ(adopted->identity.family, family::Family::upstream);
    EXPECT_EQ(adopted->identity.release, release);
    auto o = options(app_zluda);
    auto plan = prepare_launch(o, {});
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->runtime_family.release, release);
    EXPECT_EQ(plan->compute_capability.value, "8.5");
  }
}

}  // namespace
}  // namespace zcuda::launch
