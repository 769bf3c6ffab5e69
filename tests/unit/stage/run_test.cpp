#include <nlohmann/json.hpp>

#include "stage_fixture.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

std::string hex(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    out += "0123456789abcdef"[c >> 4];
    out += "0123456789abcdef"[c & 15];
  }
  return out;
}

class RunFixture : public StageFixture {
 protected:
  CommandResult run(std::vector<std::string> args, CommandOptions options = {}) {
    args.insert(args.begin(), {"run", "--runtime-dir", runtime.string()});
    return zcuda(args, options);
  }
};

TEST_F(RunFixture, HostileArgumentsArriveExactly) {
  const std::vector<std::string> hostile = {"",        " ",      "a b",     "\"quoted\"", "it's",     "back\\slash",
                                            "trail\\", "\\\"",   "ünï©ødé", "--json",     "-v",       "--",
                                            "--env",   "X=1",    "*",       "$HOME",      "a\tb\nc", "--runtime-dir"};
  std::vector<std::string> args = {ZCUDA_TEST_ARGDUMP};
  args.insert(args.end(), hostile.begin(), hostile.end());
  auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (const auto& a : hostile) expected += "arg:" + hex(a) + "\n";
  EXPECT_EQ(r.out, expected);
}

TEST_F(RunFixture, DoubleDashIsOnlyNeededBeforeADashedProgramName) {
  auto r = run({"--", ZCUDA_TEST_ARGDUMP, "--", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "arg:" + hex("--") + "\narg:" + hex("x") + "\n");
  auto bad = run({"--not-an-option", ZCUDA_TEST_ARGDUMP});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("zcuda run -- APP"), std::string::npos) << bad.err;
  auto none = run({});
  EXPECT_EQ(none.exit_code, 2);
}

TEST_F(RunFixture, ExitCodeAndSignalBecomeZcudas) {
  auto code = run({"--env", "ARGDUMP_EXIT=42", ZCUDA_TEST_ARGDUMP});
  EXPECT_EQ(code.exit_code, 42) << code.err;
  auto zero = run({"/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
  auto term = run({"/bin/sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(term.exit_code, 143) << term.err;
  auto kill = run({"/bin/sh", "-c", "kill -KILL $$"});
  EXPECT_EQ(kill.exit_code, 137) << kill.err;
}

TEST_F(RunFixture, SigtermToZcudaReachesTheChild) {
  // zcuda forwards SIGTERM; the child (sleep) dies of it and zcuda reports 143.
  auto r = run_command({"/bin/sh", "-c",
                        std::string("\"$0\" --home \"$1\" run --runtime-dir \"$2\" /bin/sleep 30 & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid"),
                        ZCUDA_BIN, home.string(), runtime.string()});
  EXPECT_EQ(r.exit_code, 143) << r.err;
}

TEST_F(RunFixture, EnvironmentIsPrintedAndOverridable) {
  fs::create_directories(tmp / "rocm" / "lib" / "rocblas" / "library" / "gfx1200");
  fs::create_directories(tmp / "rocm" / "lib" / "hipblaslt" / "library");
  auto r = run({"--print-env", "--hip-path", (tmp / "rocm").string(), "--gfx", "gfx1200", "--device", "1", "--env",
                "ZLUDA_CC=9.0", "--env", "EXTRA=a=b", ZCUDA_TEST_ARGDUMP, "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ZLUDA_CC=9.0\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ZLUDA_CC=8.6"), std::string::npos);
  EXPECT_NE(r.out.find("EXTRA=a=b\n"), std::string::npos);
  EXPECT_NE(r.out.find("HIP_VISIBLE_DEVICES=1\n"), std::string::npos);
  EXPECT_NE(r.out.find("HIP_PATH=" + (tmp / "rocm").string() + "\n"), std::string::npos);
  EXPECT_NE(r.out.find("ROCBLAS_TENSILE_LIBPATH=" + (tmp / "rocm" / "lib" / "rocblas" / "library" / "gfx1200").string() + "\n"),
            std::string::npos);
  // No gfx1200 folder for hipBLASLt: the common folder.
  EXPECT_NE(r.out.find("HIPBLASLT_TENSILE_LIBPATH=" + (tmp / "rocm" / "lib" / "hipblaslt" / "library").string() + "\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("LD_LIBRARY_PATH=" + runtime.string()), std::string::npos);
  EXPECT_EQ(r.out.find("arg:"), std::string::npos);  // nothing ran

  auto bad = run({"--env", "NOEQUALS", ZCUDA_TEST_ARGDUMP});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(RunFixture, TheProgramSeesTheEnvironment) {
  auto r = run({"--json", "--env", "ZCUDA_PROBE=yes", "/bin/sh", "-c", "echo \"$ZLUDA_CC|$ZCUDA_PROBE|${LD_LIBRARY_PATH%%:*}\""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("8.6|yes|" + runtime.string() + "\n", 0), 0u) << r.out;
  auto j = json::parse(r.out.substr(r.out.find('\n') + 1));
  EXPECT_EQ(j["exit_code"], 0);
  ASSERT_TRUE(j.contains("record"));
  auto record = json::parse(read_file(j["record"].get<std::string>()));
  EXPECT_EQ(record["exit_code"], 0);
  EXPECT_EQ(record["arg_count"], 2);
  EXPECT_EQ(record["runtime"]["dir"], runtime.string());
}

TEST_F(RunFixture, StagesACudaProgramAndSaysSo) {
  const auto before = snapshot(app);
  auto r = run({(app / "cuda_app").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "runtime-libcuda\n");
  EXPECT_NE(r.err.find("zcuda unstage"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(app / ".zcuda-stage" / "journal.json"));
  // Without zcuda the staged library is what the program now loads; unstage gives it back.
  EXPECT_EQ(which_libcuda(), "runtime-libcuda\n");
  ASSERT_EQ(zcuda({"unstage", app.string()}).exit_code, 0);
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(RunFixture, NoStageLeavesTheFolderAlone) {
  const auto before = snapshot(app);
  auto r = run({"--no-stage", (app / "cuda_app").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // RUNPATH ($ORIGIN) comes after LD_LIBRARY_PATH, so the runtime still wins.
  EXPECT_EQ(r.out, "runtime-libcuda\n");
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(RunFixture, OrdinaryProgramsAreNotStaged) {
  auto r = run({"/bin/true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists("/bin/.zcuda-stage"));
  EXPECT_EQ(r.err, "");
}

TEST_F(RunFixture, InstalledRuntimeIsUsedWithoutRuntimeDir) {
  auto none = zcuda({"run", ZCUDA_TEST_ARGDUMP});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_NE(none.err.find("zcuda install"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("--runtime-dir"), std::string::npos);

  const fs::path installed = home / "installs" / "zluda" / "v6-test" / "zluda";
  fs::create_directories(installed);
  fs::copy_file(ZCUDA_TEST_RUNTIME_LIBCUDA, installed / "libcuda.so.1");
  write_file(home / "installs" / "zluda" / "current", "v6-test\n");
  auto r = zcuda({"--json", "run", "--print-env", ZCUDA_TEST_ARGDUMP});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["runtime"]["dir"], installed.string());
  EXPECT_EQ(j["runtime"]["chosen_by"], "installed");
}

TEST_F(RunFixture, MissingProgramIsNotFound) {
  auto r = run({(tmp / "no-such-program").string()});
  EXPECT_EQ(r.exit_code, 3);
}

}  // namespace
}  // namespace zcuda::test
