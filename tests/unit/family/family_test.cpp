// Runtime families on real PE files (tests/unit/family/pe): recognition of each family's
// libraries and folders, the refusal of a mixed launch, and the per-family facts.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <zcuda/base/sha256.hpp>
#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/family/family.hpp>

#include "family_parts.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::family {
namespace {

namespace fs = std::filesystem;
using platform::Os;

bool has_line(const std::vector<std::string>& lines, std::string_view text) {
  return std::ranges::any_of(lines, [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(FamilyPe, ExportsDelayImportsAndVersionResourceAreRead) {
  REQUIRE_PARTS();
  auto lsh = binfmt::read_imports(part("lshqqytiger_nvcuda.dll"));
  ASSERT_TRUE(lsh && *lsh) << (lsh ? "" : lsh.error().message);
  const auto& exports = (*lsh)->exports;
  EXPECT_NE(std::ranges::find(exports, "zluda_get_nightly_flag"), exports.end());
  EXPECT_NE(std::ranges::find(exports, "zluda_get_hip_object"), exports.end());
  EXPECT_NE(std::ranges::find(exports, "cuInit"), exports.end());
  EXPECT_FALSE((*lsh)->version.has_value());

  auto up = binfmt::read_imports(part("upstream_nvcuda.dll"));
  ASSERT_TRUE(up && *up);
  EXPECT_NE(std::ranges::find((*up)->delay_needed, "amdhip64_7.dll"), (*up)->delay_needed.end());
  EXPECT_EQ(std::ranges::find((*up)->exports, "zluda_get_nightly_flag"), (*up)->exports.end());

  auto nvidia = binfmt::read_imports(part("nvidia_cublas.dll"));
  ASSERT_TRUE(nvidia && *nvidia);
  ASSERT_TRUE((*nvidia)->version.has_value());
  EXPECT_EQ((*nvidia)->version->file_version, "11.11.3.6");
  EXPECT_EQ((*nvidia)->version->strings.at("CompanyName"), "NVIDIA Corporation");
  EXPECT_EQ((*nvidia)->version->strings.at("ProductName"), "NVIDIA CUDA 11.8.89 BLAS Library");
}

TEST(FamilyLibrary, EachFamilysLibrariesAreToldApart) {
  REQUIRE_PARTS();
  auto lsh = identify_library(part("lshqqytiger_nvcuda.dll"), Os::windows);
  ASSERT_TRUE(lsh);
  EXPECT_EQ(lsh->family, Family::lshqqytiger);
  EXPECT_NE(lsh->evidence.find("zluda_get_"), std::string::npos);
  for (const char* name : {"lshqqytiger_cublas.dll", "lshqqytiger_cusparse.dll", "lshqqytiger_cufft.dll", "lshqqytiger_nvrtc.dll"}) {
    auto library = identify_library(part(name), Os::windows);
    ASSERT_TRUE(library) << name;
    EXPECT_EQ(library->family, Family::lshqqytiger) << name;
    EXPECT_NE(library->evidence.find("at load time"), std::string::npos) << library->evidence;
  }
  auto up = identify_library(part("upstream_nvcuda.dll"), Os::windows);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->family, Family::upstream);
  EXPECT_NE(up->evidence.find("amdhip64_7.dll"), std::string::npos);
  // NVIDIA's original and a file that says nothing are not ZLUDA libraries.
  EXPECT_FALSE(identify_library(part("nvidia_cublas.dll"), Os::windows));
  EXPECT_FALSE(identify_library(part("program.exe"), Os::windows));
}

TEST(FamilyRuntime, UpstreamFolderWithThe32Folder) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_upstream(dir / "zluda", true);
  auto identity = identify_runtime(dir / "zluda", Os::windows);
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->family, Family::upstream);
  EXPECT_TRUE(identity->has_32bit);
  EXPECT_FALSE(identity->release.has_value());
  EXPECT_TRUE(has_line(identity->evidence, "nvcudart_hybrid64.dll is a name only upstream ships"));
  EXPECT_EQ(to_json(*identity)["family"], "upstream");
}

TEST(FamilyRuntime, UpstreamFolderWithoutThe32Folder) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_upstream(dir.path(), false);
  auto identity = identify_runtime(dir.path(), Os::windows);
  ASSERT_TRUE(identity);
  EXPECT_EQ(identity->family, Family::upstream);
  EXPECT_FALSE(identity->has_32bit);
}

// An upstream folder whose files no digest names (an archive from --url, an adopted folder):
// the commit its nvcuda.dll embeds names the release, and so the capability it reports.
TEST(FamilyRuntime, UpstreamReleaseFromTheCommitItsDriverEmbeds) {
  REQUIRE_PARTS();
  const auto with_commit = [](const fs::path& dir, const std::string& commit) {
    make_upstream(dir, false);
    std::ofstream(dir / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtin" << commit << "gfx1100";
  };
  test::TempDir dir;
  with_commit(dir / "v6-preview.69", "87531d399676772ae0b00dca01b52524951e21dc");
  with_commit(dir / "v7-preview.9", "8a7931be87d758835776f54ea2e33d30621c74ce");
  with_commit(dir / "dev-build", std::string(40, 'e'));
  auto up = facts(Family::upstream);
  ASSERT_TRUE(up);

  auto older = identify_runtime(dir / "v6-preview.69", Os::windows);
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_EQ(older->family, Family::upstream);
  EXPECT_EQ(older->release, "v6-preview.69");
  EXPECT_TRUE(has_line(older->evidence, "nvcuda.dll was built from commit 87531d399676772ae0b00dca01b52524951e21dc, upstream's tag v6-preview.69"));
  EXPECT_EQ(default_cc(*up, older->release), "8.8");

  auto newer = identify_runtime(dir / "v7-preview.9", Os::windows);
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->release, "v7-preview.9");
  EXPECT_EQ(default_cc(*up, newer->release), "8.5");

  auto untagged = identify_runtime(dir / "dev-build", Os::windows);
  ASSERT_TRUE(untagged);
  EXPECT_EQ(untagged->family, Family::upstream);
  EXPECT_FALSE(untagged->release);
}

TEST(FamilyRuntime, LshqqytigerReleaseAndNightly) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_lshqqytiger(dir / "release", false);
  make_lshqqytiger(dir / "nightly", true);
  auto release = identify_runtime(dir / "release", Os::windows);
  ASSERT_TRUE(release) << release.error().message;
  EXPECT_EQ(release->family, Family::lshqqytiger);
  EXPECT_FALSE(release->release.has_value());
  EXPECT_TRUE(has_line(release->evidence, "exports zluda_get_"));
  auto nightly = identify_runtime(dir / "nightly", Os::windows);
  ASSERT_TRUE(nightly);
  EXPECT_EQ(nightly->family, Family::lshqqytiger);
  EXPECT_EQ(nightly->release, "nightly");
}

TEST(FamilyRuntime, AFolderOfBothFamiliesIsUnknownNotGuessed) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_upstream(dir.path(), false);
  put("lshqqytiger_cublas.dll", dir / "cublas.dll");
  auto identity = identify_runtime(dir.path(), Os::windows);
  ASSERT_TRUE(identity);
  EXPECT_EQ(identity->family, Family::unknown);
  EXPECT_TRUE(has_line(identity->evidence, "both families"));
}

TEST(FamilyRuntime, AFolderWhoseFilesDoNotTellIsUnknown) {
  REQUIRE_PARTS();
  test::TempDir dir;
  put("upstream_library.dll", dir / "nvcuda.dll");
  auto identity = identify_runtime(dir.path(), Os::windows);
  ASSERT_TRUE(identity);
  EXPECT_EQ(identity->family, Family::unknown);
  EXPECT_TRUE(has_line(identity->evidence, "no file says"));
}

TEST(FamilyRuntime, MissingFolderAndFolderWithoutZludaAreErrors) {
  test::TempDir dir;
  auto missing = identify_runtime(dir / "nope", Os::windows);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
  test::write_file(dir / "app" / "readme.txt", "x");
  test::write_file(dir / "app" / "zluda" / "nvcuda.dll", "x");
  auto empty = identify_runtime(dir / "app", Os::windows);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().kind, ErrorKind::not_found);
  EXPECT_NE(empty.error().hint.find("zluda"), std::string::npos) << empty.error().hint;
}

TEST(FamilyMixed, UpstreamRuntimeWithAPatchedTorchLibIsRefused) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_upstream(dir / "runtime", false);
  // ComfyUI-Zluda's install-n.bat: lshqqytiger's cublas.dll copied over torch's cublas64_11.dll,
  // NVIDIA's own nvrtc kept as nvrtc_cuda.dll.
  const fs::path torch_lib = dir / "venv" / "Lib" / "site-packages" / "torch" / "lib";
  put("lshqqytiger_cublas.dll", torch_lib / "cublas64_11.dll");
  put("nvidia_cublas.dll", torch_lib / "nvrtc_cuda.dll");
  put("program.exe", torch_lib / "torch_cpu.dll");
  auto runtime = identify_runtime(dir / "runtime", Os::windows);
  ASSERT_TRUE(runtime);
  auto status = check_not_mixed(*runtime, {dir / "venv", torch_lib}, Os::windows);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::mixed_family);
  EXPECT_EQ(exit_code(status.error().kind), 14);
  EXPECT_NE(status.error().message.find("cublas64_11.dll"), std::string::npos) << status.error().message;
  EXPECT_NE(status.error().message.find("upstream"), std::string::npos);
  EXPECT_NE(status.error().message.find("lshqqytiger"), std::string::npos);
  EXPECT_NE(status.error().hint.find("--runtime-dir"), std::string::npos);
  EXPECT_NE(status.error().hint.find("--direct --no-stage"), std::string::npos);

  // The same folder with lshqqytiger's own runtime is one family.
  make_lshqqytiger(dir / "own", false);
  auto own = identify_runtime(dir / "own", Os::windows);
  ASSERT_TRUE(own);
  EXPECT_TRUE(check_not_mixed(*own, {torch_lib}, Os::windows));
}

TEST(FamilyMixed, NvidiaOriginalsAndUpstreamCopiesAreNotAMix) {
  REQUIRE_PARTS();
  test::TempDir dir;
  make_upstream(dir / "runtime", false);
  put("nvidia_cublas.dll", dir / "app" / "cublas64_11.dll");
  put("upstream_nvcuda.dll", dir / "app" / "nvcuda.dll");
  auto runtime = identify_runtime(dir / "runtime", Os::windows);
  ASSERT_TRUE(runtime);
  EXPECT_TRUE(check_not_mixed(*runtime, {dir / "app", dir / "missing"}, Os::windows));
  auto found = zluda_libraries_in(dir / "app", Os::windows);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path.filename(), "nvcuda.dll");
}

TEST(FamilyMixed, AFolderOfBothFamiliesIsRefusedEvenWithAnUnknownRuntime) {
  REQUIRE_PARTS();
  test::TempDir dir;
  put("upstream_nvcuda.dll", dir / "app" / "nvcuda.dll");
  put("lshqqytiger_cublas.dll", dir / "app" / "cublas64_11.dll");
  Identity unknown;
  auto status = check_not_mixed(unknown, {dir / "app"}, Os::windows);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::mixed_family);
}

TEST(FamilyFacts, ComputeCapabilityAndVariablesComeFromEachFamilysSource) {
  auto up = facts(Family::upstream);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->default_cc, "8.5");  // zluda_common/src/constants.rs
  EXPECT_EQ(up->cc_variables, (std::vector<std::string>{"ZLUDA_CC", "ZLUDA_SM"}));
  EXPECT_NE(std::ranges::find(up->launcher_sets, "TORCH_CUDNN_V8_API_DISABLED=1"), up->launcher_sets.end());
  auto lsh = facts(Family::lshqqytiger);
  ASSERT_TRUE(lsh);
  EXPECT_EQ(lsh->default_cc, "8.8");  // zluda/src/impl/device.rs
  EXPECT_TRUE(lsh->cc_variables.empty());
  EXPECT_EQ(lsh->app_copies.at("cublas.dll"), "cublas64_11.dll");
  // Read at vosen/ZLUDA 8a7931be and lshqqytiger/ZLUDA 5e717459 (docs/families.md).
  auto has = [](const std::vector<std::string>& list, std::string_view name) { return std::ranges::find(list, name) != list.end(); };
  EXPECT_FALSE(has(up->variables, "ZLUDA_ML_LIB")) << "set by zluda.exe --zluda-trace, read by nothing";
  EXPECT_TRUE(has(up->variables, "ZLUDA_NVML_LIB"));
  EXPECT_TRUE(has(up->variables, "HIP_PATH"));                 // zluda_windows/src/lib.rs try_load_from_hip_path
  EXPECT_TRUE(has(up->variables, "CUDA_PATH"));                // zluda_inject/src/bin.rs
  EXPECT_TRUE(has(up->serves, "nvapi64.dll"));                 // zluda_windows/src/lib.rs LIBRARIES, #651
  EXPECT_TRUE(has(lsh->variables, "ZLUDA_WAVE64_SLOW_MODE"));  // zluda/src/impl/device.rs
  EXPECT_EQ(lsh->app_copies.at("nvrtc.dll"), "nvrtc64_112_0.dll");
  EXPECT_FALSE(facts(Family::unknown));

  auto env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "ZLUDA_SM") return std::string("7.5");
    return std::nullopt;
  };
  EXPECT_EQ(cc_setting_read(up->cc_variables, env)->variable, "ZLUDA_SM");
  EXPECT_FALSE(cc_setting_read(lsh->cc_variables, env));
  // An empty ZLUDA_CC is read (and gives the default): ZLUDA_SM is not (zluda_common/src/constants.rs).
  auto empty_cc = [](std::string_view name) -> std::optional<std::string> { return std::string(name == "ZLUDA_CC" ? "" : "7.5"); };
  auto read = cc_setting_read(up->cc_variables, empty_cc);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->variable, "ZLUDA_CC");
  EXPECT_FALSE(read->parsed);
  EXPECT_EQ(parse_cc("8.6.1"), (std::pair{8, 6}));
  EXPECT_EQ(parse_cc("7"), (std::pair{7, 0}));
  EXPECT_FALSE(parse_cc(""));
  // Upstream before v6-preview.63 (vosen/ZLUDA#620, e0703209) reads neither.
  EXPECT_EQ(up->cc_variables_since, "v6-preview.63");
  EXPECT_TRUE(cc_variables_read(*up, "v6-preview.62").empty());
  EXPECT_EQ(cc_variables_read(*up, "v6-preview.63"), up->cc_variables);
  EXPECT_EQ(cc_variables_read(*up, "v6"), up->cc_variables);
  EXPECT_EQ(cc_variables_read(*up, std::nullopt), up->cc_variables);
  EXPECT_TRUE(cc_variables_read(*lsh, std::nullopt).empty());
}

TEST(FamilyFacts, UpstreamsDefaultFollowsTheRelease) {
  // zluda_common/src/constants.rs: 8.8 at tag v6 and v7-preview.7, 8.5 from v7-preview.8 (#670).
  EXPECT_TRUE(release_before("v6", "v7-preview.8"));
  EXPECT_TRUE(release_before("v6-preview.69", "v6"));  // the release comes after its previews
  EXPECT_TRUE(release_before("v7-preview.7", "v7-preview.8"));
  EXPECT_FALSE(release_before("v7-preview.8", "v7-preview.8"));
  EXPECT_FALSE(release_before("v7-preview.10", "v7-preview.8"));  // numbers, not text
  EXPECT_FALSE(release_before("v7", "v7-preview.8"));
  EXPECT_FALSE(release_before("nightly", "v7-preview.8"));
  EXPECT_FALSE(release_before("v6-preview.", "v7-preview.8"));
  EXPECT_FALSE(release_before("ComfyUI-zluda", "v7-preview.8"));
  auto up = facts(Family::upstream);
  ASSERT_TRUE(up);
  EXPECT_EQ(default_cc(*up, "v6"), "8.8");
  EXPECT_EQ(default_cc(*up, "v6-preview.69"), "8.8");
  EXPECT_EQ(default_cc(*up, "v7-preview.7"), "8.8");
  EXPECT_EQ(default_cc(*up, "v7-preview.10"), "8.5");
  EXPECT_EQ(default_cc(*up, std::nullopt), "8.5");  // an unknown release: today's default
  auto lsh = facts(Family::lshqqytiger);
  ASSERT_TRUE(lsh);
  EXPECT_EQ(default_cc(*lsh, "v6"), "8.8");
  EXPECT_EQ(default_cc(*lsh, "nightly"), "8.8");
}

// Every release tag's commit is a full commit id and a release name default_cc can order.
TEST(FamilyFacts, ReleaseCommitsAreWellFormed) {
  auto up = facts(Family::upstream);
  ASSERT_TRUE(up);
  ASSERT_GE(up->release_commits.size(), 100u);
  for (const auto& [commit, release] : up->release_commits) {
    EXPECT_EQ(commit.size(), 40u) << release;
    EXPECT_EQ(commit.find_first_not_of("0123456789abcdef"), std::string::npos) << release;
    EXPECT_TRUE(release_before(release, "v8")) << release << " is not a release name";
  }
  EXPECT_EQ(up->release_commits.at("3fe12063f4b864f39376718bb212c6b80a55cab3"), "v6");  // v6 and v6-preview.79's commit
  // Released after the clone read (8a7931be); the commits public projects pin for them.
  EXPECT_EQ(up->release_commits.at("9c8b43f242985150f86a7f485218b7b82c3e96ca"), "v7-preview.10");
  EXPECT_EQ(up->release_commits.at("ee2f25a180099fa42f36b2346732e1f2470a03ad"), "v7-preview.11");
  EXPECT_TRUE(facts(Family::lshqqytiger)->release_commits.empty());
}

TEST(FamilyFacts, KnownFilesAreWellFormed) {
  ASSERT_FALSE(known_files().empty());
  for (const auto& known : known_files()) {
    EXPECT_TRUE(is_sha256_hex(known.sha256)) << known.name;
    EXPECT_GT(known.size, 0u) << known.name;
    EXPECT_NE(known.family, Family::unknown);
    EXPECT_FALSE(known.release.empty());
  }
}

// An install receipt's digest stands in for reading the bytes when the size on disk is the
// recorded one: zeros of the v6 nvcuda.dll's size are that release only by the receipt's word.
TEST(FamilyReceipt, ARecordedDigestIsBelievedOnlyAtTheRecordedSize) {
  const KnownFile& known = known_file("nvcuda.dll", "v6");
  test::TempDir dir;
  const fs::path runtime = dir.path() / "v6";
  write_zeros(runtime / "nvcuda.dll", known.size);
  ASSERT_NE(sha256_file(runtime / "nvcuda.dll").value(), known.sha256);

  const RecordedFile recorded{known.size, known.sha256};
  auto library = identify_library(runtime / "nvcuda.dll", Os::windows, recorded);
  ASSERT_TRUE(library);
  EXPECT_EQ(library->family, Family::upstream);
  EXPECT_EQ(library->release, "v6");
  EXPECT_NE(library->evidence.find("install receipt"), std::string::npos) << library->evidence;
  auto identity = identify_runtime(runtime, Os::windows, Recorded{{{"nvcuda.dll", recorded}}});
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->family, Family::upstream);
  EXPECT_EQ(identity->release, "v6");

  // Without a receipt the bytes are read: zeros are no release and no PE.
  EXPECT_FALSE(identify_library(runtime / "nvcuda.dll", Os::windows));
  auto hashed = identify_runtime(runtime, Os::windows);
  ASSERT_TRUE(hashed);
  EXPECT_EQ(hashed->family, Family::unknown);
  EXPECT_FALSE(hashed->release);

  // A receipt of another size describes other bytes: not believed.
  const RecordedFile other_size{known.size - 1, known.sha256};
  EXPECT_FALSE(identify_library(runtime / "nvcuda.dll", Os::windows, other_size));
  auto stale = identify_runtime(runtime, Os::windows, Recorded{{{"nvcuda.dll", other_size}}});
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->family, Family::unknown);
  EXPECT_FALSE(stale->release);
}

TEST(FamilyWords, IdentityJsonRoundTrip) {
  Identity identity;
  identity.family = Family::lshqqytiger;
  identity.release = "nightly";
  identity.evidence = {"nvcuda.dll exports zluda_get_nightly_flag"};
  identity.has_32bit = true;
  EXPECT_EQ(to_json(identity).get<Identity>(), identity);
  auto unknown_word = to_json(identity);
  unknown_word["family"] = "vosen";
  EXPECT_THROW(unknown_word.get<Identity>(), nlohmann::json::exception);
}

TEST(FamilyWords, RoundTrip) {
  for (Family f : {Family::upstream, Family::lshqqytiger, Family::unknown}) EXPECT_EQ(family_from_word(to_string(f)), f);
  EXPECT_FALSE(family_from_word("vosen"));
}

}  // namespace
}  // namespace zcuda::family
