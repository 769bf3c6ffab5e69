#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <zcuda/platform/process.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::platform {
namespace {

ProcessSpec sh(const std::string& script) {
  ProcessSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", script};
  spec.streams = StreamMode::capture;
  return spec;
}

TEST(Process, CapturesStreamsAndExitCode) {
  auto r = run_process(sh("echo out; echo err >&2; exit 7"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(describe_exit(*r), "exit code 7");
}

TEST(Process, ArgumentsArriveExactly) {
  ProcessSpec spec = sh("for a in \"$@\"; do printf '[%s]' \"$a\"; done");
  spec.args.push_back("sh");  // $0
  for (std::string a : {"", "two words", "quote\"d", "back\\slash", "ünï", "--flag", "*"}) spec.args.push_back(a);
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "[][two words][quote\"d][back\\slash][ünï][--flag][*]");
}

TEST(Process, CrashIsReportedAsSignal) {
  auto r = run_process(sh("kill -SEGV $$"));
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->signal);
  EXPECT_EQ(*r->signal, SIGSEGV);
  EXPECT_EQ(r->exit_code, 128 + SIGSEGV);
  EXPECT_EQ(describe_exit(*r), "killed by signal 11 (SIGSEGV)");
}

TEST(Process, TimeoutKillsTheWholeTree) {
  test::TempDir dir;
  auto marker = dir / "grandchild-alive";
  // The grandchild would create the marker after 2 s if it survived the timeout.
  ProcessSpec spec = sh("(sleep 2; touch '" + marker.string() + "') & sleep 30");
  spec.timeout = std::chrono::milliseconds(300);
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(r->seconds, 5.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a grandchild outlived the timeout";
}

TEST(Process, EnvironmentIsReplacedWhenGiven) {
  ProcessSpec spec = sh("printf '%s|%s' \"$ZCUDA_X\" \"${HOME-unset}\"");
  spec.environment = Environment{{"ZCUDA_X", "v a l"}, {"PATH", "/usr/bin:/bin"}};
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "v a l|unset");
}

TEST(Process, WorkingDirectory) {
  test::TempDir dir;
  ProcessSpec spec = sh("pwd");
  spec.working_dir = dir.path();
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, std::filesystem::canonical(dir.path()).string() + "\n");
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
  test::write_file(dir / "script", "#!/bin/sh\n");
  ProcessSpec spec;
  spec.program = dir / "script";
  spec.streams = StreamMode::capture;
  auto r = run_process(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::environment);
  EXPECT_NE(r.error().hint.find("chmod"), std::string::npos);
}

TEST(Process, CurrentEnvironmentSeesVariables) {
  setenv("ZCUDA_PROCESS_TEST", "yes", 1);
  auto env = current_environment();
  EXPECT_EQ(env["ZCUDA_PROCESS_TEST"], "yes");
}

}  // namespace
}  // namespace zcuda::platform
