// Runtime families through the zcuda binary, on folders of the family suite's MinGW-built
// stand-ins (tests/unit/family): the mixed-family refusal (exit 14) and the family that
// run --print-env names. The refusal is a Windows launch's: these run as Windows programs under
// Wine (scripts/test-windows.sh); elsewhere they are skipped.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/path_text.hpp>

#include "family/family_parts.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace zcuda {
namespace {

namespace fs = std::filesystem;

class FamilyCli : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef _WIN32
    GTEST_SKIP() << "a Windows launch: run under Wine by scripts/test-windows.sh";
#endif
    if (!fs::exists(family::part("upstream_nvcuda.dll"))) GTEST_SKIP() << "MinGW-w64 was not found at configure time";
    family::make_upstream(upstream, true);
    family::make_lshqqytiger(lshqqytiger, false);
    family::put("program.exe", app / "app.exe");
  }
  test::CommandResult run(const fs::path& runtime, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{
        "--home", path_to_utf8(dir.path() / "home"), "run", "--no-detect", "--direct", "--runtime-dir", path_to_utf8(runtime)};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(path_to_utf8(app / "app.exe"));
    return test::run_zcuda(args);
  }
  test::TempDir dir;
  fs::path upstream = dir.path() / "upstream", lshqqytiger = dir.path() / "lshqqytiger", app = dir.path() / "app";
};

// ComfyUI-Zluda's installer copied lshqqytiger's cuBLAS beside the program; upstream's runtime
// would put both families into one process: refused before anything is staged or started.
TEST_F(FamilyCli, AMixedLaunchIsRefusedWithExit14AndNothingChanges) {
  family::put("lshqqytiger_cublas.dll", app / "cublas64_11.dll");
  auto r = run(upstream);
  EXPECT_EQ(r.exit_code, 14) << r.out << r.err;
  EXPECT_NE(r.err.find("lshqqytiger"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cublas64_11.dll"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--runtime-dir"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(app / ".zcuda-stage"));

  auto json = test::run_zcuda({"--home", path_to_utf8(dir.path() / "home"), "--json", "run", "--no-detect", "--direct", "--runtime-dir",
                               path_to_utf8(upstream), path_to_utf8(app / "app.exe")});
  EXPECT_EQ(json.exit_code, 14);
  auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  EXPECT_EQ(j["error"]["kind"], "mixed_family") << json.out;
}

// run --print-env names the family, the release where the files tell, and the compute
// capability the family reports by itself.
TEST_F(FamilyCli, PrintEnvNamesEachFamily) {
  auto up = run(upstream, {"--print-env"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_NE(up.out.find("# runtime family: upstream"), std::string::npos) << up.out;
  auto lq = run(lshqqytiger, {"--print-env"});
  ASSERT_EQ(lq.exit_code, 0) << lq.err;
  EXPECT_NE(lq.out.find("# runtime family: lshqqytiger"), std::string::npos) << lq.out;
}

// A profile's family against the runtime chosen: SD.Next (lshqqytiger's family) given upstream's
// runtime with --runtime-dir is refused, and --print-env says why.
TEST_F(FamilyCli, AProfileOfTheOtherFamilyIsRefused) {
  auto shown = run(upstream, {"--profile", "sdnext", "--print-env"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("# problem: profile sdnext needs lshqqytiger ZLUDA"), std::string::npos) << shown.out;
  auto r = run(upstream, {"--profile", "sdnext"});
  EXPECT_EQ(r.exit_code, 14) << r.out << r.err;
  EXPECT_NE(r.err.find("profile sdnext needs lshqqytiger ZLUDA"), std::string::npos) << r.err;
}

// --print-env for an upstream driver built before v6-preview.63 (it embeds v6-preview.62's commit):
// ZLUDA_CC is not read there (vosen/ZLUDA#620), so --zluda-cc changes nothing and 8.8 is shown;
// with v6-preview.63's commit the value asked for is what the program sees.
TEST_F(FamilyCli, PrintEnvFollowsTheReleaseForZludaCc) {
  std::ofstream(upstream / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtindcc6bb8fdad2add9e33f8d5206560379ee07a3afgfx1100";
  auto old = test::run_zcuda({"--home", path_to_utf8(dir.path() / "home"), "--json", "run", "--no-detect", "--direct", "--runtime-dir",
                              path_to_utf8(upstream), "--print-env", "--zluda-cc", "8.6", path_to_utf8(app / "app.exe")});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  const auto j = nlohmann::json::parse(old.out);
  EXPECT_EQ(j["runtime_family"]["release"], "v6-preview.62") << old.out;
  EXPECT_EQ(j["compute_capability"]["value"], "8.8") << old.out;
  EXPECT_NE(j["compute_capability"]["why"].get<std::string>().find("v6-preview.63"), std::string::npos) << old.out;

  family::make_upstream(upstream, true);
  std::ofstream(upstream / "nvcuda.dll", std::ios::binary | std::ios::app) << "builtine07032098bdd3de8ec31ffd1ed5cdf96d55caae8gfx1100";
  auto first = run(upstream, {"--print-env", "--zluda-cc", "8.6"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("# compute capability: 8.6"), std::string::npos) << first.out;
}

}  // namespace
}  // namespace zcuda
