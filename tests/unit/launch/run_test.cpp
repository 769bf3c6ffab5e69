#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <zcuda/platform/files.hpp>

#include "support/stage_fixture.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

using nlohmann::json;

// The test child (support/test_child.cpp) as the program zcuda runs.
const std::string child = ZCUDA_TEST_CHILD;

class RunFixture : public StageFixture {
 protected:
  CommandResult run(std::vector<std::string> args, CommandOptions options = {}) {
    args.insert(args.begin(), {"run", "--runtime-dir", runtime.string()});
    return zcuda(args, options);
  }
};

TEST_F(RunFixture, HostileArgumentsArriveExactly) {
  const std::vector<std::string> hostile_arguments = {"",        " ",    "a b",     "\"quoted\"", "it's",    "back\\slash",
                                                      "trail\\", "\\\"", "ünï©ødé", "--json",     "-v",      "--",
                                                      "--env",   "X=1",  "*",       "$HOME",      "a\tb\nc", "--runtime-dir"};
  std::vector<std::string> args = {child, "argdump"};
  args.insert(args.end(), hostile_arguments.begin(), hostile_arguments.end());
  auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, argdump_output(hostile_arguments));
}

TEST_F(RunFixture, DoubleDashIsOnlyNeededBeforeADashedProgramName) {
  auto r = run({"--", child, "argdump", "--", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, argdump_output({"--", "x"}));
  auto bad = run({"--not-an-option", child});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("zcuda run -- APP"), std::string::npos) << bad.err;
  auto none = run({});
  EXPECT_EQ(none.exit_code, 2);
}

TEST_F(RunFixture, ExitCodeAndSignalBecomeZcudas) {
  auto code = run({"--env", "ARGDUMP_EXIT=42", child, "argdump"});
  EXPECT_EQ(code.exit_code, 42) << code.err;
  auto zero = run({child, "exit", "0"});
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
#ifdef _WIN32
  // Windows exit codes are 32 bits, and a crash ends a program with its exception's NTSTATUS.
  auto large = run({child, "exit", "300"});
  EXPECT_EQ(large.exit_code, 300) << large.err;
  auto crash = run({child, "crash"});
  EXPECT_EQ(static_cast<unsigned>(crash.exit_code), 0xC0000005u) << crash.err;
#else
  auto term = run({child, "signal", std::to_string(SIGTERM)});
  EXPECT_EQ(term.exit_code, 143) << term.err;
  auto kill = run({child, "signal", std::to_string(SIGKILL)});
  EXPECT_EQ(kill.exit_code, 137) << kill.err;
#endif
}

TEST_F(RunFixture, SigtermToZcudaReachesTheChild) {
#ifdef _WIN32
  GTEST_SKIP() << "POSIX signals; Windows delivers Ctrl-C through a console, which the test harness's pipes have not "
                  "(RunFixture.KilledZcudaTakesTheProgramWithIt covers Windows' job object)";
#else
  // zcuda forwards SIGTERM; the child dies of it and zcuda reports 143.
  const fs::path ready = tmp / "child-ready";
  BackgroundProcess zcuda_run(
      {ZCUDA_BIN, "--home", home.string(), "run", "--runtime-dir", runtime.string(), child, "touch", ready.string(), "sleep", "30000"});
  ASSERT_TRUE(wait_for_file(ready)) << "the program never started";
  zcuda_run.kill(SIGTERM);
  EXPECT_EQ(zcuda_run.wait(), 143);
#endif
}

// zcuda killed outright (no chance to clean up) must not leave the program running: Linux ties
// it to zcuda with a parent-death signal, Windows with a job object that kills on close.
TEST_F(RunFixture, KilledZcudaTakesTheProgramWithIt) {
  const fs::path marker = tmp / "program-outlived-zcuda";
  const fs::path ready = tmp / "child-ready";
  BackgroundProcess zcuda_run({ZCUDA_BIN, "--home", home.string(), "run", "--runtime-dir", runtime.string(), child, "touch", ready.string(), "sleep",
                               "3000", "touch", marker.string()});
  ASSERT_TRUE(wait_for_file(ready)) << "the program never started";
  zcuda_run.kill();
  zcuda_run.wait();
  // Not a readiness guess: past the 3 s after which a surviving program would have left the marker.
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  EXPECT_FALSE(fs::exists(marker)) << "the program went on after zcuda was killed";
}

// A failing program's stderr passes through live, and a known failure in it is explained after
// the program's own output; the run record keeps which one it was, and report shows it.
TEST_F(RunFixture, KnownFailureInStderrIsExplainedAfterTheProgramsOutput) {
  auto r = run({"--json", child, "out", "program output\n", "err", "loading\nZLUDA failed to load rocblas.dll\n", "exit", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("program output\n", 0), 0u) << r.out;
  const auto message = r.err.find("ZLUDA failed to load rocblas.dll");
  const auto explanation = r.err.find("[zluda-perf-library-not-loaded]");
  ASSERT_NE(message, std::string::npos) << r.err;
  ASSERT_NE(explanation, std::string::npos) << r.err;
  EXPECT_LT(message, explanation);
  auto j = json::parse(r.out.substr(r.out.find('\n') + 1));
  EXPECT_EQ(j["explained"]["id"], "zluda-perf-library-not-loaded");
  EXPECT_EQ(j["explained"]["title"], "ZLUDA could not load rocblas.dll (no HIP SDK)");
  auto record = json::parse(platform::read_file(zcuda::path_from_utf8(j["record"].get<std::string>())).value());
  EXPECT_EQ(record["explained"]["id"], "zluda-perf-library-not-loaded");
  auto report = zcuda({"report"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("known failure: ZLUDA could not load rocblas.dll (no HIP SDK) (`zluda-perf-library-not-loaded`)"), std::string::npos)
      << report.out;
}

TEST_F(RunFixture, NoExplainSuccessAndUnknownFailuresExplainNothing) {
  auto off = run({"--no-explain", child, "err", "ZLUDA failed to load rocblas.dll\n", "exit", "1"});
  EXPECT_EQ(off.exit_code, 1);
  EXPECT_NE(off.err.find("ZLUDA failed to load rocblas.dll"), std::string::npos) << off.err;
  EXPECT_EQ(off.err.find("zluda-perf-library-not-loaded"), std::string::npos) << off.err;
  auto ok = run({child, "err", "ZLUDA failed to load rocblas.dll\n", "exit", "0"});
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.err.find("zluda-perf-library-not-loaded"), std::string::npos) << ok.err;
  auto unknown = run({"--json", child, "err", "something else broke\n", "exit", "2"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("something else broke"), std::string::npos) << unknown.err;
  auto j = json::parse(unknown.out);
  EXPECT_FALSE(j.contains("explained"));
}

TEST_F(RunFixture, EnvironmentIsPrintedAndOverridable) {
  // The HIP SDK keeps its libraries in bin\ on Windows, ROCm in lib/.
#ifdef _WIN32
  const fs::path lib = tmp / "rocm" / "bin";
#else
  const fs::path lib = tmp / "rocm" / "lib";
#endif
  fs::create_directories(lib / "rocblas" / "library" / "gfx1200");
  fs::create_directories(lib / "hipblaslt" / "library");
  auto r = run({"--print-env", "--hip-path", (tmp / "rocm").string(), "--gfx", "gfx1200", "--device", "1", "--env", "ZLUDA_CC=9.0", "--env",
                "EXTRA=a=b", child, "argdump", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ZLUDA_CC=9.0\n"), std::string::npos) << r.out;
  // The user's own value is the one the program sees, and print-env says why.
  EXPECT_NE(r.out.find("# compute capability: 9.0 (your ZLUDA_CC=9.0"), std::string::npos) << r.out;
  // The runtime's family is named with its evidence (the stand-in is unknown on Linux; on Windows
  // its CUDA 12 names are ones only upstream ships).
  EXPECT_NE(r.out.find("# runtime family: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n    # ", r.out.find("# runtime family: ")), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("EXTRA=a=b\n"), std::string::npos);
  EXPECT_NE(r.out.find("HIP_VISIBLE_DEVICES=1\n"), std::string::npos);
  EXPECT_NE(r.out.find("ROCBLAS_TENSILE_LIBPATH=" + (lib / "rocblas" / "library" / "gfx1200").string() + "\n"), std::string::npos) << r.out;
  // No gfx1200 folder for hipBLASLt: the common folder.
  EXPECT_NE(r.out.find("HIPBLASLT_TENSILE_LIBPATH=" + (lib / "hipblaslt" / "library").string() + "\n"), std::string::npos);
#ifdef _WIN32
  // The program's folder, then the runtime, then the HIP SDK's bin, ahead of the rest of PATH.
  EXPECT_NE(r.out.find("PATH=" + test_child().parent_path().string() + ";" + runtime.string() + ";" + lib.string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("HIP_PATH=" + (tmp / "rocm").string() + "\n"), std::string::npos);
#else
  // The runtime, then ROCm's lib folder (ZLUDA links ROCm's unversioned names); no HIP_PATH,
  // which only ZLUDA's Windows build reads.
  EXPECT_NE(r.out.find("LD_LIBRARY_PATH=" + runtime.string() + ":" + lib.string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HIP_PATH="), std::string::npos) << r.out;
#endif
  EXPECT_EQ(r.out.find("arg:"), std::string::npos);  // nothing ran

  auto bad = run({"--env", "NOEQUALS", child});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(RunFixture, TheProgramSeesTheEnvironment) {
#ifdef _WIN32
  const char* search = "PATH";  // the program's folder first, then the runtime
  const std::string expected_search = test_child().parent_path().string() + ";" + runtime.string() + ";";
#else
  const char* search = "LD_LIBRARY_PATH";
  const std::string expected_search = runtime.string();
#endif
  auto r =
      run({"--json", "--env", "ZCUDA_PROBE=yes", child, "env", "ZLUDA_CC", "out", "|", "env", "ZCUDA_PROBE", "out", "|", "env", search, "out", "\n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // zcuda sets no ZLUDA_CC unless --zluda-cc asks: the runtime's family decides.
  ASSERT_EQ(r.out.rfind("<unset>|yes|" + expected_search, 0), 0u) << r.out;
  auto j = json::parse(r.out.substr(r.out.find('\n') + 1));
  EXPECT_EQ(j["exit_code"], 0);
  ASSERT_TRUE(j.contains("record"));
  auto record = json::parse(read_file(j["record"].get<std::string>()));
  EXPECT_EQ(record["exit_code"], 0);
  EXPECT_EQ(record["arg_count"], 12);
  EXPECT_EQ(record["runtime"]["dir"], runtime.string());
}

// Linux finds libraries through LD_LIBRARY_PATH; PATH only picks programs (a venv's python, a
// toolchain), so the program and its children get the user's PATH exactly, whatever the HIP root
// (Debian's HIP runtime makes it /usr) or LibTorch folder.
TEST_F(RunFixture, LinuxKeepsTheUsersPath) {
#ifdef _WIN32
  GTEST_SKIP() << "Windows finds DLLs through PATH (RunFixture.EnvironmentIsPrintedAndOverridable)";
#else
  const fs::path venv = tmp / "venv" / "bin";
  fs::create_directories(venv);
  fs::create_directories(tmp / "rocm" / "bin");
  fs::create_directories(tmp / "torch" / "lib");
  fs::create_directories(tmp / "torch" / "bin");
  const std::string user_path = venv.string() + ":/usr/local/bin:/usr/bin:/bin";
  CommandOptions options;
  options.set_env["PATH"] = user_path;
  options.unset_env = {"LD_LIBRARY_PATH"};
  auto r = run({"--hip-path", (tmp / "rocm").string(), "--libtorch", (tmp / "torch").string(), child, "env", "PATH", "out", "|", "env",
                "LD_LIBRARY_PATH", "out", "\n"},
               options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, user_path + "|" + runtime.string() + ":" + (tmp / "torch" / "lib").string() + "\n");

  auto usr = run({"--print-env", "--hip-path", "/usr", child}, options);
  ASSERT_EQ(usr.exit_code, 0) << usr.err;
  EXPECT_FALSE(usr.out.starts_with("PATH=")) << usr.out;
  EXPECT_EQ(usr.out.find("\nPATH="), std::string::npos) << usr.out;
#endif
}

TEST_F(RunFixture, StagesACudaProgramAndSaysSo) {
  const auto before = snapshot(app);
  auto r = run({(app / cuda_names.app).string()});
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
  auto r = run({"--no-stage", (app / cuda_names.app).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
#ifdef _WIN32
  // The program's own folder comes first in Windows' search order, ahead of PATH: unstaged, its
  // own nvcuda.dll wins. This is why zcuda stages (or uses zluda.exe) on Windows.
  EXPECT_EQ(r.out, "app-libcuda\n");
#else
  // RUNPATH ($ORIGIN) comes after LD_LIBRARY_PATH, so the runtime still wins.
  EXPECT_EQ(r.out, "runtime-libcuda\n");
#endif
  EXPECT_EQ(snapshot(app), before);
}

TEST_F(RunFixture, OrdinaryProgramsAreNotStaged) {
  const fs::path plain = tmp / "plain";
  fs::create_directories(plain);
  fs::copy_file(test_child(), plain / test_child().filename());
  auto r = run({(plain / test_child().filename()).string(), "exit", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(plain / ".zcuda-stage"));
  // Nothing said but, on Windows without the HIP SDK here, the load dialogs ZLUDA would open.
  std::string said;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("modal dialog") == std::string::npos) said += line + "\n";
  }
  EXPECT_EQ(said, "") << r.err;
}

TEST_F(RunFixture, InstalledRuntimeIsUsedWithoutRuntimeDir) {
  auto none = zcuda({"run", child});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_NE(none.err.find("zcuda install"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("--runtime-dir"), std::string::npos);

  const fs::path installed = home / "installs" / "zluda" / "v6-test" / "zluda";
  fs::create_directories(installed);
  fs::copy_file(path_from_utf8(ZCUDA_TEST_RUNTIME_LIBCUDA), installed / cuda_names.driver);
  write_file(home / "installs" / "zluda" / "current", "v6-test\n");
  auto r = zcuda({"--json", "run", "--print-env", child});
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
