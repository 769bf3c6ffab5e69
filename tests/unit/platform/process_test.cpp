#include <chrono>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include <zcuda/platform/process.hpp>
#include <zcuda/base/path_text.hpp>

#include "support/environment.hpp"
#include "support/temp_dir.hpp"
#include "support/test_child.hpp"

namespace zcuda::platform {
namespace {

// The test child (support/test_child.cpp) with its actions, output captured.
ProcessSpec child(std::vector<std::string> actions) {
  ProcessSpec spec;
  spec.program = test::test_child();
  spec.args = std::move(actions);
  spec.streams = StreamMode::capture;
  return spec;
}

TEST(Process, AppendTailKeepsTheLastBytes) {
  std::string tail;
  append_tail(tail, "abcdef", 4);
  EXPECT_EQ(tail, "cdef");
  append_tail(tail, "gh", 4);
  EXPECT_EQ(tail, "efgh");
  append_tail(tail, "i", 4);
  EXPECT_EQ(tail, "fghi");
  append_tail(tail, "", 4);
  EXPECT_EQ(tail, "fghi");
}

// run's tee of stderr: the child's stderr is kept (its tail) while stdin and stdout stay shared.
TEST(Process, StderrTailKeepsTheEndOfAFailingChildsStderr) {
  ProcessSpec spec = child({"err", "first line\n", "err", std::string(5000, 'x'), "err", "\nZLUDA failed to load rocblas.dll\n", "exit", "1"});
  spec.streams = StreamMode::inherit;
  spec.stderr_tail = 64;
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 1);
  ASSERT_EQ(r->err_tail.size(), 64u);
  EXPECT_TRUE(r->err_tail.ends_with("\nZLUDA failed to load rocblas.dll\n")) << r->err_tail;
  EXPECT_TRUE(r->out.empty());
  EXPECT_TRUE(r->err.empty());
}

// A grandchild that keeps the stderr pipe open must not hold zcuda after the child has ended.
TEST(Process, StderrTailDoesNotWaitForAGrandchildHoldingThePipe) {
  test::TempDir dir;
  ProcessSpec spec = child({"spawn", "4000", (dir / "late").string(), "err", "boom\n", "exit", "3"});
  spec.streams = StreamMode::inherit;
  spec.stderr_tail = 1024;
  const auto started = std::chrono::steady_clock::now();
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(3000));
  EXPECT_NE(r->err_tail.find("boom"), std::string::npos) << r->err_tail;
}

// Captured streams: a grandchild that outlives the child holds the pipes; what the child wrote
// comes back soon after it ended (the grandchild's group is ended, as Windows ends the job),
// instead of waiting out the timeout and losing it.
TEST(Process, CaptureDoesNotWaitForAGrandchildHoldingThePipes) {
  test::TempDir dir;
  ProcessSpec spec = child({"out", "the result\n", "spawn", "20000", (dir / "late").string(), "exit", "0"});
  spec.streams = StreamMode::capture;
  spec.timeout = std::chrono::seconds(60);
  const auto started = std::chrono::steady_clock::now();
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "the result\n");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(Process, CapturesStreamsAndExitCode) {
  auto r = run_process(child({"out", "out\n", "err", "err\n", "exit", "7"}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(describe_exit(*r), "exit code 7");
}

// On Windows this is the round trip through CreateProcess: zcuda quotes each argument into one
// command line and the child's C runtime splits it again.
TEST(Process, ArgumentsArriveExactly) {
  const std::vector<std::string> hostile = {"",
                                            "two words",
                                            "quote\"d",
                                            "back\\slash",
                                            "ünï ©ødé 日本",
                                            "--flag",
                                            "*",
                                            "trail\\",
                                            "\\\"",
                                            "\\\\\"x\\\\",
                                            "a\tb\nc",
                                            "\"\"",
                                            "C:\\Program Files\\x\\",
                                            "%PATH%",
                                            "^&|<>()",
                                            "$HOME",
                                            "'single'",
                                            " "};
  ProcessSpec spec = child({"argdump"});
  spec.args.insert(spec.args.end(), hostile.begin(), hostile.end());
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(r->out, test::argdump_output(hostile));
}

TEST(Process, CrashIsReportedAsSignalOrException) {
  auto r = run_process(child({"crash"}));
  ASSERT_TRUE(r);
#ifdef _WIN32
  ASSERT_TRUE(r->exception_status);
  EXPECT_EQ(*r->exception_status, 0xC0000005u);
  EXPECT_EQ(describe_exit(*r), "crashed with exception 0xC0000005 (access violation)");
#else
  ASSERT_TRUE(r->signal);
  EXPECT_EQ(*r->signal, SIGSEGV);
  EXPECT_EQ(r->exit_code, 128 + SIGSEGV);
  EXPECT_EQ(describe_exit(*r), "killed by signal 11 (SIGSEGV)");
#endif
}

// One table serves describe_exit and explain's loader-dialog entries; 0xC0000142 (a DLL's
// DllMain failed, as zluda_redirect.dll's does in a 32-bit program) was once "unhandled exception".
TEST(Process, WindowsStatusesAreNamed) {
  ProcessResult loader;
  loader.exception_status = 0xC0000142u;
  EXPECT_EQ(describe_exit(loader), "crashed with exception 0xC0000142 (a DLL's initialization routine failed)");
  EXPECT_EQ(exit_status_meaning(0xC0000135u), "a DLL the program needs was not found");
  EXPECT_EQ(exit_status_meaning(0xC0000139u), "a DLL lacks a function the program needs (entry point not found)");
  EXPECT_EQ(exit_status_meaning(0xC0000001u), "unhandled exception");
}

TEST(Process, LargeExitCodesArriveWhole) {
  // Windows exit codes are 32 bits; POSIX keeps the low 8.
  auto r = run_process(child({"exit", "300"}));
  ASSERT_TRUE(r);
#ifdef _WIN32
  EXPECT_EQ(r->exit_code, 300);
#else
  EXPECT_EQ(r->exit_code, 300 & 0xff);
#endif
  EXPECT_FALSE(r->exception_status);
  EXPECT_FALSE(r->signal);
}

// Windows: the child and the grandchild it starts belong to one job object, terminated as one.
TEST(Process, TimeoutKillsTheWholeTree) {
  test::TempDir dir;
  auto marker = dir / "grandchild-alive";
  // The grandchild would create the marker after 2 s if it survived the timeout.
  ProcessSpec spec = child({"spawn", "2000", path_to_utf8(marker), "sleep", "30000"});
  spec.timeout = std::chrono::milliseconds(500);
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(r->seconds, 5.0);
  EXPECT_NE(describe_exit(*r).find("timed out"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a grandchild outlived the timeout";
}

TEST(Process, EnvironmentIsReplacedWhenGiven) {
  test::ScopedEnv parent_only("ZCUDA_PROCESS_PARENT_ONLY", "1");
  ProcessSpec spec = child({"env", "ZCUDA_X", "out", "|", "env", "ZCUDA_PROCESS_PARENT_ONLY"});
  Environment env{{"ZCUDA_X", "v a l ü"}};
  // Windows programs need SystemRoot to start their system DLLs.
  if (auto root = get_env("SystemRoot")) env["SystemRoot"] = *root;
  spec.environment = env;
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "v a l ü|<unset>");
}

TEST(Process, WorkingDirectory) {
  test::TempDir dir;
  const auto folder = dir / "wörk dir";
  std::filesystem::create_directories(folder);
  ProcessSpec spec = child({"cwd"});
  spec.working_dir = folder;
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(path_from_utf8(r->out), std::filesystem::canonical(folder));
}

TEST(Process, ProgramInAFolderWithSpacesAndNonAscii) {
  test::TempDir dir;
  const auto folder = dir / "Prögram Files (x86)";
  std::filesystem::create_directories(folder);
  const auto copy = folder / test::test_child().filename();
  std::filesystem::copy_file(test::test_child(), copy);
  ProcessSpec spec = child({"out", "ran"});
  spec.program = copy;
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "ran");
}

TEST(Process, MissingProgramIsNotFound) {
  ProcessSpec spec;
  spec.program = "/nonexistent/zcuda-no-such-program";
  spec.streams = StreamMode::capture;
  auto r = run_process(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
}

TEST(Process, NonExecutableIsAnEnvironmentError) {
  test::TempDir dir;
#ifdef _WIN32
  // Not a program Windows can start: a text file named like one.
  const auto file = dir / "script.exe";
  test::write_file(file, "echo this is not a program\n");
#else
  const auto file = dir / "script";
  test::write_file(file, "#!/bin/sh\n");
#endif
  ProcessSpec spec;
  spec.program = file;
  spec.streams = StreamMode::capture;
  auto r = run_process(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::environment);
#ifndef _WIN32
  EXPECT_NE(r.error().hint.find("chmod"), std::string::npos);
#endif
}

TEST(Process, CurrentEnvironmentSeesVariables) {
  test::ScopedEnv set("ZCUDA_PROCESS_TEST", "yés");
  auto env = current_environment();
  EXPECT_EQ(env["ZCUDA_PROCESS_TEST"], "yés");
}

}  // namespace
}  // namespace zcuda::platform
