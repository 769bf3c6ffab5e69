// Launcher records, the probe's argument echo, and learning a launcher's join from a real run.
#include <gtest/gtest.h>

#include <zcuda/base/sha256.hpp>
#include <zcuda/launch/launcher.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/base/path_text.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const fs::path probe = zcuda::path_from_utf8(ZCUDA_TEST_PROBE_BIN);

LauncherRecord sample_record() {
  LauncherRecord r;
  r.sha256 = std::string(64, 'a');
  r.join = LauncherJoin::spaces;
  r.learned_utc = "2026-12-04T01:00:00Z";
  r.zcuda_version = "0.1.0";
  r.sent = echo_sample_arguments();
  r.received = {"a", "b", "q"};
  return r;
}

TEST(LauncherRecord, RoundTripsThroughJson) {
  const auto record = sample_record();
  const nlohmann::json json = record;
  EXPECT_EQ(json.at("join"), "spaces");
  EXPECT_EQ(json.get<LauncherRecord>(), record);
  auto wrong = json;
  wrong["join"] = "tabs";
  EXPECT_THROW((void)wrong.get<LauncherRecord>(), nlohmann::json::exception);
  wrong = json;
  wrong["schema"] = 99;
  EXPECT_THROW((void)wrong.get<LauncherRecord>(), nlohmann::json::exception);
}

TEST(LauncherRecord, IsKeptByTheLaunchersDigest) {
  EXPECT_EQ(launcher_record_path("/state", "ab12"), fs::path("/state") / "launchers" / "ab12.json");
}

TEST(EchoOutput, IsFoundAmongOtherLines) {
  EXPECT_EQ(parse_echo_output("noise\n{\"echo_argv\":[\"a b\",\"\"]}\r\nmore"), (Args{"a b", ""}));
  EXPECT_FALSE(parse_echo_output("the launcher said nothing useful\n"));
  EXPECT_FALSE(parse_echo_output(""));
}

// The real zcuda-probe, run with the variable, prints exactly the arguments it was given.
TEST(EchoOutput, TheProbeEchoesItsArguments) {
  const Args spaced_and_quoted = {"a b",
                                  "",
                                  "\"q\"",
                                  "back\\",
                                  "\xC3\xBCnic\xC3\xB6"
                                  "de",
                                  "--check",
                                  "\\\\\"",
                                  "\t"};
  platform::ProcessSpec spec;
  spec.program = probe;
  spec.args = spaced_and_quoted;
  auto env = platform::current_environment();
  env[kEchoArgvVariable] = "1";
  spec.environment = env;
  spec.streams = platform::StreamMode::capture;
  auto ran = platform::run_process(spec);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->exit_code, 0) << ran->err;
  EXPECT_EQ(parse_echo_output(ran->out), spaced_and_quoted) << ran->out;
}

TEST(LauncherCommand, PutsFlagsThenTheEncodedProgram) {
  auto command = launcher_command(LauncherJoin::spaces, {"--zluda-trace"}, "C:\\a b\\p.exe", {"x y"});
  ASSERT_TRUE(command);
  EXPECT_EQ(*command, (Args{"--zluda-trace", "--", "\"C:\\a b\\p.exe\"", "\"x y\""}));
  EXPECT_FALSE(launcher_command(LauncherJoin::no_separator, {}, "p.exe", {"1", "2"}));
}

TEST(KnownLauncherJoin, ReadsTheRecordKeptForTheLauncher) {
  test::TempDir tmp;
  const fs::path launcher = tmp / "zluda.exe";
  test::write_file(launcher, "not a program: the record answers before anything runs");
  auto digest = zcuda::sha256_file(launcher);
  ASSERT_TRUE(digest);
  auto record = sample_record();
  record.sha256 = *digest;
  record.join = LauncherJoin::no_separator;
  test::write_file(launcher_record_path(tmp / "state", *digest), nlohmann::json(record).dump());
  auto join = known_launcher_join(launcher, probe, tmp / "state");
  ASSERT_TRUE(join) << join.error().message;
  EXPECT_EQ(*join, LauncherJoin::no_separator);
  // A damaged record is not trusted: learning runs, and this "launcher" cannot run.
  test::write_file(launcher_record_path(tmp / "state", *digest), "{ damaged");
  EXPECT_FALSE(known_launcher_join(launcher, probe, tmp / "state"));
}

#ifndef _WIN32
// Shell scripts as launchers (Windows has its own launcher programs: launcher_run_test.cpp).
fs::path script(const fs::path& path, const std::string& body) {
  test::write_file(path, "#!/bin/sh\n" + body);
  fs::permissions(path, fs::perms::owner_all);
  return path;
}
#endif

TEST(LearnLauncher, ClassifiesWhatTheEchoTargetReceived) {
#ifdef _WIN32
  GTEST_SKIP() << "POSIX shell scripts stand in for the launcher here; on Windows launcher_run_test.cpp runs launcher programs";
#else
  test::TempDir tmp;
  // Drops "--" and starts the program with its arguments as they are: a quoting launcher.
  const auto launcher = script(tmp / "zluda.exe", "shift\nexec \"$@\"\n");
  auto learned = learn_launcher(launcher, probe);
  ASSERT_TRUE(learned) << learned.error().message;
  EXPECT_EQ(learned->join, LauncherJoin::quoting);
  EXPECT_EQ(learned->received, echo_sample_arguments());
  EXPECT_EQ(learned->sha256, *zcuda::sha256_file(launcher));
  // Kept under the state folder, and found there the next time.
  auto join = known_launcher_join(launcher, probe, tmp / "state");
  ASSERT_TRUE(join);
  EXPECT_TRUE(fs::exists(launcher_record_path(tmp / "state", learned->sha256)));
#endif
}

TEST(LearnLauncher, SaysWhenTheLauncherDidNotStartTheTarget) {
#ifdef _WIN32
  GTEST_SKIP() << "POSIX shell scripts stand in for the launcher here; on Windows launcher_run_test.cpp runs launcher programs";
#else
  test::TempDir tmp;
  const auto launcher = script(tmp / "zluda.exe", "echo 'DetourCreateProcessWithDllsW failed with error_code 2' >&2\nexit 1\n");
  auto learned = learn_launcher(launcher, probe);
  ASSERT_FALSE(learned);
  EXPECT_NE(learned.error().message.find("without starting the program"), std::string::npos) << learned.error().message;
  EXPECT_NE(learned.error().message.find("error_code 2"), std::string::npos) << learned.error().message;
  EXPECT_NE(learned.error().hint.find("--direct"), std::string::npos);
  // One that starts it but mangles the arguments beyond any known join.
  const auto odd = script(tmp / "odd.exe", "shift\nexec \"$1\" mangled\n");
  auto unknown = learn_launcher(odd, probe);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::unsupported);
  EXPECT_NE(unknown.error().message.find("mangled"), std::string::npos) << unknown.error().message;
#endif
}

}  // namespace
}  // namespace zcuda::launch
