// The fatbin check (llama.cpp): the capability ZLUDA reports, read as upstream reads it; a
// llama.cpp tree built here (libggml-cuda.so, an ELF whose .nv_fatbin holds the test builder's
// fat binaries) checked against it; and the dispatch on the profile's check kind.
#include <gtest/gtest.h>

#ifdef _WIN32
#include "support/registry_scratch.hpp"
#endif

#include <zcuda/apps/check.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/base/record.hpp>

#include "binfmt/section_builder.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::apps {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

const Profile& profile(std::string_view name) {
  static const auto loaded = load(std::nullopt);
  const Profile* p = find(*loaded, name);
  if (p == nullptr) throw std::runtime_error("no embedded profile " + std::string(name));
  return *p;
}

TEST(ReportedCc, UpstreamReadsZludaCcThenZludaSmElseItsDefault) {
  const auto os = platform::Os::linux;
  auto none = reported_cc(family::Family::upstream, std::nullopt, {}, os);
  EXPECT_EQ(none.text(), "8.5");
  EXPECT_EQ(none.from, "upstream's default");
  auto cc = reported_cc(family::Family::upstream, std::nullopt, {{"ZLUDA_CC", "8.6"}, {"ZLUDA_SM", "7.0"}}, os);
  EXPECT_EQ(cc.value(), 86);
  EXPECT_EQ(cc.from, "ZLUDA_CC=8.6");
  EXPECT_EQ(reported_cc(family::Family::upstream, std::nullopt, {{"ZLUDA_SM", "7"}}, os).text(), "7.0");  // the minor defaults to 0
  auto junk = reported_cc(family::Family::upstream, std::nullopt, {{"ZLUDA_CC", "eight"}, {"ZLUDA_SM", "7.0"}}, os);
  EXPECT_EQ(junk.text(), "8.5");  // the first variable set decides; one that does not parse falls back
  ASSERT_TRUE(junk.ignored);
  auto v6 = reported_cc(family::Family::upstream, "v6", {}, os);  // before #670 upstream reported 8.8
  EXPECT_EQ(v6.text(), "8.8");
  EXPECT_EQ(v6.from, "upstream's default in release v6");
  EXPECT_EQ(reported_cc(family::Family::upstream, "v7-preview.10", {}, os).text(), "8.5");
  auto lsh = reported_cc(family::Family::lshqqytiger, std::nullopt, {{"ZLUDA_CC", "7.5"}}, os);
  EXPECT_EQ(lsh.text(), "8.8");
  EXPECT_EQ(lsh.from, "lshqqytiger's default");
  ASSERT_TRUE(lsh.ignored);
  EXPECT_NE(lsh.ignored->find("does not read it"), std::string::npos);
}

// zluda_common/src/constants.rs: std::env::var("ZLUDA_CC").or_else(ZLUDA_SM) falls through only
// when ZLUDA_CC is absent, so an empty ZLUDA_CC gives the default and ZLUDA_SM goes unread.
TEST(ReportedCc, AnEmptyZludaCcStopsZludaSmBeingRead) {
  const auto os = platform::Os::linux;
  auto empty = reported_cc(family::Family::upstream, std::nullopt, {{"ZLUDA_CC", ""}, {"ZLUDA_SM", "7.5"}}, os);
  EXPECT_EQ(empty.text(), "8.5");
  ASSERT_TRUE(empty.ignored);
  EXPECT_NE(empty.ignored->find("does not read ZLUDA_SM"), std::string::npos) << *empty.ignored;
  EXPECT_EQ(reported_cc(family::Family::upstream, std::nullopt, {{"ZLUDA_CC", "8.6.1"}}, os).text(), "8.6");  // the rest is ignored
}

// Releases before v6-preview.63 (vosen/ZLUDA#620, e0703209) read neither variable: 8.8, fixed.
TEST(ReportedCc, ReleasesBeforeTheVariablesCameReportAFixed88) {
  const auto os = platform::Os::linux;
  auto old = reported_cc(family::Family::upstream, "v6-preview.62", {{"ZLUDA_CC", "7.5"}}, os);
  EXPECT_EQ(old.text(), "8.8");
  EXPECT_TRUE(old.variables.empty());
  ASSERT_TRUE(old.ignored);
  EXPECT_NE(old.ignored->find("v6-preview.63"), std::string::npos) << *old.ignored;
  auto first = reported_cc(family::Family::upstream, "v6-preview.63", {{"ZLUDA_CC", "7.5"}}, os);
  EXPECT_EQ(first.text(), "7.5");
  EXPECT_EQ(first.from, "ZLUDA_CC=7.5");
}

struct LlamaTree {
  TempDir dir;
  Match match;
  explicit LlamaTree(const std::string& section_content) {
    test::write_file(dir / "libggml-cuda.so", test::elf_with_sections({".text", ".nv_fatbin"}, section_content));
    match.profile = profile("llama-cpp");
    match.root = dir.path();
  }
};

CheckRecord checked(const LlamaTree& tree, const platform::Environment& env, family::Family family = family::Family::upstream) {
  CheckRun run;
  run.match = &tree.match;
  run.app = tree.dir.path();
  run.family = family;
  run.environment = env;
  run.os = platform::Os::linux;
  CheckRecord record;
  EXPECT_TRUE(run_check(run, record));
  return record;
}

const std::string kPtx75And89 = test::fatbin_with({{2, 86, false, "cubin"}, {1, 75, false, ".target sm_75"}, {1, 89, true, ".target sm_89"}});

TEST(FatbinCheck, PassesWithPtxAtOrBelowTheReportedCapability) {
  LlamaTree tree(kPtx75And89);
  auto r = checked(tree, {});
  EXPECT_EQ(r.check, Check::fatbin);
  EXPECT_EQ(r.status, CheckStatus::pass) << r.reason;
  // Upstream takes the last PTX of the fat binary that parses, not the one that fits 8.5.
  EXPECT_EQ(r.facts["ptx_used"], "compute_89");
  EXPECT_NE(r.reason.find("compiles compute_89"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("higher architecture"), std::string::npos) << r.reason;
  EXPECT_EQ(r.facts["compute_capability"], "8.5");
  EXPECT_EQ(r.facts["targets"].size(), 3u);
  auto higher = checked(tree, {{"ZLUDA_CC", "9.0"}});
  EXPECT_EQ(higher.facts["ptx_used"], "compute_89");
  EXPECT_EQ(higher.reason.find("higher architecture"), std::string::npos) << higher.reason;
}

// zluda/src/impl/module.rs get_best_ptx_and_compile: each fat binary's PTX in reverse order, the
// first that parses; file order decides, not the architecture.
TEST(FatbinCheck, PtxUsedIsTheLastPtxOfEachFatBinary) {
  LlamaTree tree(test::fatbin_with({{1, 75, false, ".target sm_75"}, {1, 86, false, ".target sm_86"}}) +
                 test::fatbin_with({{1, 80, false, ".target sm_80"}, {1, 61, false, ".target sm_61"}, {2, 86, false, "cubin"}}));
  auto r = checked(tree, {});
  EXPECT_EQ(r.status, CheckStatus::pass) << r.reason;
  EXPECT_EQ(r.facts["ptx_used"], "compute_61, compute_86");
  EXPECT_EQ(r.facts["images"], 5);
}

TEST(FatbinCheck, FailsWithOnlyHigherPtxOrCubinsAndSaysWhatToDo) {
  LlamaTree tree(test::fatbin_with({{2, 86, false, "cubin"}, {1, 86, false, ".target sm_86"}}));
  auto r = checked(tree, {});
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.reason.find("compute_86 (PTX)"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("sm_86 (cubin)"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("8.5"), std::string::npos) << r.reason;
  const std::string hint = r.facts["hint"];
  EXPECT_NE(hint.find("ZLUDA_CC=8.6"), std::string::npos) << hint;
  EXPECT_NE(hint.find("CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << hint;
  EXPECT_NE(hint.find("GGML_CUDA_FORCE_CUBLAS"), std::string::npos) << hint;
  // The same build passes once ZLUDA reports 8.6.
  EXPECT_EQ(checked(tree, {{"ZLUDA_CC", "8.6"}}).status, CheckStatus::pass);
  // lshqqytiger reports 8.8 and reads no variable: the hint does not offer one.
  auto lsh = checked(tree, {}, family::Family::lshqqytiger);
  EXPECT_EQ(lsh.status, CheckStatus::pass);

  LlamaTree cubins_only(test::fatbin_with({{2, 75, false, "cubin"}, {2, 86, false, "cubin"}}));
  auto c = checked(cubins_only, {}, family::Family::lshqqytiger);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_EQ(std::string(c.facts["hint"]).find("ZLUDA_CC="), std::string::npos);
}

// A Windows build: ggml-cuda.dll under bin/, its fat binaries in the PE section .nv_fatb.
TEST(FatbinCheck, ReadsAWindowsBuildsGgmlCudaDll) {
  TempDir dir;
  test::write_file(dir / "bin" / "ggml-cuda.dll",
                   test::pe_with_sections({".text", ".nv_fatb"}, test::fatbin_with({{1, 80, false, ".target sm_80"}})));
  Match match;
  match.profile = profile("llama-cpp");
  match.root = dir.path();
  CheckRun run;
  run.match = &match;
  run.app = dir.path();
  run.os = platform::Os::windows;
  run.environment = {{"zluda_cc", "7.5"}};  // Windows variable names ignore case
  CheckRecord r;
  ASSERT_TRUE(run_check(run, r));
  EXPECT_EQ(r.status, CheckStatus::fail) << r.reason;
  EXPECT_EQ(r.facts["compute_capability_from"], "ZLUDA_CC=7.5");
  EXPECT_NE(r.facts["library"].get<std::string>().find("ggml-cuda.dll"), std::string::npos);
  run.environment = {};
  CheckRecord at_default;
  ASSERT_TRUE(run_check(run, at_default));
  EXPECT_EQ(at_default.status, CheckStatus::pass) << at_default.reason;
  EXPECT_EQ(at_default.facts["ptx_used"], "compute_80");
}

TEST(FatbinCheck, AMissingOrMalformedLibraryIsAnErrorNotAPass) {
  LlamaTree tree(test::fatbin_with({{1, 75}}) + "JUNKJUNKJUNKJUNKJUNK");
  EXPECT_EQ(checked(tree, {}).status, CheckStatus::error);
  TempDir empty;
  Match match;
  match.profile = profile("llama-cpp");
  match.root = empty.path();
  CheckRun run;
  run.match = &match;
  run.app = empty.path();
  CheckRecord r;
  ASSERT_TRUE(run_check(run, r));
  EXPECT_EQ(r.status, CheckStatus::error);
}

TEST(RunCheck, AProfileWithoutACheckIsRefusedNotPassed) {
  Match match;
  match.profile = profile("blender");
  CheckRun run;
  run.match = &match;
  CheckRecord r;
  auto ran = run_check(run, r);
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().kind, ErrorKind::unsupported);
  EXPECT_FALSE(r.passed());
}

// The PhysX check runs (physx_check_test.cpp judges the versions): with nothing installed it
// fails on Windows and is unavailable elsewhere, never passed.
TEST(RunCheck, ThePhysxCheckRunsAndDoesNotPassWithoutTheSystemSoftware) {
#ifdef _WIN32
  test::RegistryScratch registry;  // an empty registry: nothing is installed
#endif
  Match match;
  match.profile = profile("physx-32bit");
  CheckRun run;
  run.match = &match;
  CheckRecord r;
  ASSERT_TRUE(run_check(run, r));
  EXPECT_EQ(r.check, Check::physx);
#ifdef _WIN32
  EXPECT_EQ(r.status, CheckStatus::fail) << r.reason;
  EXPECT_NE(r.reason.find("is not installed"), std::string::npos) << r.reason;
#else
  EXPECT_EQ(r.status, CheckStatus::unavailable) << r.reason;
#endif
}

TEST(RunCheck, TheRecordKeepsItsCheckKindAndOldRecordsReadAsTorch) {
  LlamaTree tree(kPtx75And89);
  CheckRecord r = checked(tree, {});
  r.profile = "llama-cpp";
  auto back = parse_record<CheckRecord>(nlohmann::json(r), "record");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->check, Check::fatbin);
  auto old =
      parse_record<CheckRecord>(nlohmann::json{{"profile", "p"}, {"app", "a"}, {"runtime", "r"}, {"started_utc", "t"}, {"status", "pass"}}, "record");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->check, Check::torch);
  // A passing fatbin check read files; it is no evidence that the application computes right.
  TempDir dir;
  auto home = home::resolve_home(dir.path());
  ASSERT_TRUE(home);
  ASSERT_EQ(r.status, CheckStatus::pass);
  ASSERT_TRUE(write_check(*home, r));
  EXPECT_FALSE(any_check_passed(*home));
  EXPECT_EQ(read_checks(*home, 5).at(0).check, Check::fatbin);
}

}  // namespace
}  // namespace zcuda::apps
