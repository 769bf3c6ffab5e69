// `zcuda run` through launchers that join their target's arguments each way a zluda.exe build
// does (programs/fake_zluda.c): the target must receive exactly what the user typed, from a
// folder whose path holds spaces and non-ASCII letters, or zcuda must refuse before launching.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <zcuda/base/path_text.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const Args hostile = {"",
                      " ",
                      "a b",
                      "\"quoted\"",
                      "it's",
                      "back\\slash",
                      "trail\\",
                      "\\\"",
                      "\xC3\xBCn\xC3\xAF\xC2\xA9\xC3\xB8"
                      "d\xC3\xA9",
                      "--json",
                      "-v",
                      "--",
                      "a\tb",
                      "x\\\\\"y",
                      "\"",
                      "%PATH%"};

class LauncherRun : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef _WIN32
    GTEST_SKIP() << "zluda.exe exists only on Windows (Linux runs ZLUDA through LD_LIBRARY_PATH); these run on Windows and under Wine";
#else
    // The program in a folder with spaces and non-ASCII letters, as under C:\Program Files or a
    // user folder named after its owner.
    target = tmp.path() / zcuda::path_from_utf8("Program Files (x86)/J\xC3\xB6rg's app") / "child.exe";
    fs::create_directories(target.parent_path());
    fs::copy_file(test_child(), target);
#endif
  }

  // A runtime folder whose zluda.exe is the stand-in launcher `fake`.
  fs::path runtime_with(const char* fake) {
    const fs::path dir = tmp.path() / (std::string("runtime-") + std::to_string(++runtimes));
    fs::create_directories(dir);
    fs::copy_file(zcuda::path_from_utf8(fake), dir / "zluda.exe");
    return dir;
  }

  CommandResult run(const fs::path& runtime, const Args& args, const Args& flags = {}) {
    Args argv = {"--home",     zcuda::path_to_utf8(tmp.path() / "home"), "run", "--runtime-dir", zcuda::path_to_utf8(runtime), "--no-stage",
                 "--no-detect"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(zcuda::path_to_utf8(target));
    argv.push_back("argdump");
    argv.insert(argv.end(), args.begin(), args.end());
    CommandOptions options;
    options.set_env["ZCUDA_TEST_PROBE"] = ZCUDA_TEST_PROBE_BIN;
    return run_zcuda(argv, options);
  }

  // The joins learned so far, from the records kept under home.
  std::vector<std::string> learned() {
    std::vector<std::string> joins;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(tmp.path() / "home" / "state" / "launchers", ec)) {
      joins.push_back(nlohmann::json::parse(read_file(entry.path())).at("join").get<std::string>());
    }
    return joins;
  }

  TempDir tmp;
  fs::path target;
  int runtimes = 0;
};

#ifdef _WIN32
TEST_F(LauncherRun, AQuotingLauncherDeliversEveryArgument) {
  auto r = run(runtime_with(FAKE_ZLUDA_quoting), hostile);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, argdump_output(hostile));
  EXPECT_EQ(learned(), Args{"quoting"});
}

TEST_F(LauncherRun, ASpaceJoiningLauncherGetsPreQuotedArguments) {
  const auto runtime = runtime_with(FAKE_ZLUDA_spaces);
  auto r = run(runtime, hostile);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, argdump_output(hostile));
  EXPECT_EQ(learned(), Args{"spaces"});
  // The second launch uses the record: the answer is the same, and nothing is learned again.
  auto again = run(runtime, {"x y", ""});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, argdump_output({"x y", ""}));
  EXPECT_EQ(learned(), Args{"spaces"});
}

TEST_F(LauncherRun, ALauncherWithoutSeparatorsCarriesOneArgumentAndRefusesMore) {
  const auto runtime = runtime_with(FAKE_ZLUDA_no_separator);
  // The test child's action is itself an argument: "argdump" and one more are two.
  auto refused = run(runtime, {"a b"});
  EXPECT_EQ(refused.exit_code, 13) << refused.err;
  EXPECT_NE(refused.err.find("--direct"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(learned(), Args{"no_separator"});
  // --direct starts the program itself: every argument arrives.
  auto direct = run(runtime, hostile, {"--direct"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(direct.out, argdump_output(hostile));
}

// verify's probe processes go through the same encoding: a probe under a folder with spaces
// (zcuda unzipped under C:\Program Files) starts through a space-joining launcher and prints its
// result, and learning itself works from there.
TEST_F(LauncherRun, VerifysProbesGoThroughTheSameEncoding) {
  const fs::path probe = tmp.path() / "Program Files" / "zcuda dir" / "zcuda-probe.exe";
  fs::create_directories(probe.parent_path());
  fs::copy_file(zcuda::path_from_utf8(ZCUDA_TEST_PROBE_BIN), probe);
  const auto runtime = runtime_with(FAKE_ZLUDA_spaces);
  CommandOptions options;
  options.set_env["ZCUDA_TEST_PROBE"] = zcuda::path_to_utf8(probe);
  auto r = run_zcuda({"--home", zcuda::path_to_utf8(tmp.path() / "home"), "--json", "verify", "--runtime-dir", zcuda::path_to_utf8(runtime),
                      "--check", "driver.init"},
                     options);
  EXPECT_NE(r.out.find("driver.init"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("without printing a result"), std::string::npos) << r.out;
  EXPECT_EQ(learned(), Args{"spaces"});
  auto stopped = run_zcuda({"--home", zcuda::path_to_utf8(tmp.path() / "home"), "verify", "--runtime-dir",
                            zcuda::path_to_utf8(runtime_with(FAKE_ZLUDA_exits)), "--check", "driver.init"},
                           options);
  EXPECT_NE(stopped.exit_code, 0);
  EXPECT_NE(stopped.err.find("without starting the program"), std::string::npos) << stopped.err;
}

TEST_F(LauncherRun, ALauncherThatStartsNothingIsNamedAsTheCause) {
  auto r = run(runtime_with(FAKE_ZLUDA_exits), {"x"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("without starting the program"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--direct"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}
#endif

}  // namespace
}  // namespace zcuda::test
