#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

TEST(Cli, VersionPrintsVersionAndBuild) {
  auto r = run_zcuda({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("zcuda 0.", 0), 0u) << r.out;
}

TEST(Cli, HelpListsOnlyRegisteredCommands) {
  auto r = run_zcuda({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
  EXPECT_NE(r.out.find("--home"), std::string::npos);
}

TEST(Cli, UnknownCommandIsAUsageError) {
  auto r = run_zcuda({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(Cli, NoCommandIsAUsageError) {
  auto r = run_zcuda({});
  EXPECT_EQ(r.exit_code, 2);
}

// With --json every error is the same object on stdout, usage errors included: whatever CLI11
// refuses (an unknown command or option, a bad value, no command) and what commands refuse.
TEST(Cli, UsageErrorsWithJsonAreTheJsonErrorObject) {
  TempDir home;
  const std::string h = home.path().string();
  const std::vector<std::vector<std::string>> cases = {
      {"--json", "frobnicate"},
      {"--json", "--home", h, "install", "--bogus"},
      {"--json", "--home", h, "install", "--channel", "nightly"},
      {"--home", h, "install", "--json", "--no-such-option"},
      {"--json"},
      {"--json", "--home", h, "run", "--not-an-option", "app"},
  };
  for (const auto& args : cases) {
    auto r = run_zcuda(args);
    const std::string shown = ::testing::PrintToString(args);
    EXPECT_EQ(r.exit_code, 2) << shown;
    ASSERT_TRUE(nlohmann::json::accept(r.out)) << shown << "\nstdout: " << r.out << "\nstderr: " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], 1) << shown;
    EXPECT_EQ(j["ok"], false) << shown;
    EXPECT_TRUE(j.contains("command")) << shown;
    EXPECT_EQ(j["error"]["kind"], "usage") << shown;
    EXPECT_EQ(j["error"]["exit_code"], 2) << shown;
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty()) << shown;
    EXPECT_FALSE(j["error"]["hint"].get<std::string>().empty()) << shown;
    EXPECT_TRUE(j["error"]["notes"].is_array()) << shown;
    EXPECT_EQ(r.err, "") << shown;
  }
}

// Without --json a usage error reads like every other error.
TEST(Cli, UsageErrorsInTextAreErrorLines) {
  auto r = run_zcuda({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("zcuda: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("\nzcuda: hint: "), std::string::npos) << r.err;
}

// One field says whether a command succeeded, in every command's JSON: "ok".
TEST(Cli, SuccessIsOneFieldInEveryCommand) {
  TempDir home;
  const std::string h = home.path().string();
  const std::string fixture = std::string(ZCUDA_FIXTURES_DIR) + "/detect/rx9060xt-rocm64";
  const std::vector<std::vector<std::string>> succeeding = {
      {"--json", "--home", h, "detect", "--root", fixture},
      {"--json", "--home", h, "verify", "--list"},
      {"--json", "--home", h, "install", "--dry-run", "--os", "windows"},
      {"--json", "--home", h, "report", "--no-hash"},
  };
  for (const auto& args : succeeding) {
    auto r = run_zcuda(args);
    ASSERT_EQ(r.exit_code, 0) << ::testing::PrintToString(args) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ok"], true) << ::testing::PrintToString(args);
    EXPECT_FALSE(j.contains("success")) << ::testing::PrintToString(args);
  }
  // A negative outcome (detect --strict on a machine that is not ready) and a failure say false.
  auto strict = run_zcuda({"--json", "--home", h, "detect", "--strict", "--root", std::string(ZCUDA_FIXTURES_DIR) + "/detect/empty"});
  EXPECT_EQ(strict.exit_code, 10);
  EXPECT_EQ(nlohmann::json::parse(strict.out)["ok"], false);
  auto failed = run_zcuda({"--json", "--home", h, "verify", "--runtime-dir", (home / "missing").string()});
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(nlohmann::json::parse(failed.out)["ok"], false);
}

// Colour on stderr follows stderr's own terminal, whatever stdout is.
TEST(Cli, StderrColourFollowsStderrsTerminal) {
#ifdef _WIN32
  GTEST_SKIP() << "pseudo-terminals are POSIX";
#else
  TempDir home;
  const std::vector<std::string> failing = {"--home", home.path().string(), "verify", "--runtime-dir", (home / "missing").string()};
  CommandOptions stdout_on_terminal;
  stdout_on_terminal.set_env["NO_COLOR"] = "";  // empty: colour allowed (no-color.org)
  stdout_on_terminal.terminal_stream = 1;
  auto piped_err = run_zcuda(failing, stdout_on_terminal);
  EXPECT_EQ(piped_err.exit_code, 3);
  EXPECT_NE(piped_err.err.find("error:"), std::string::npos) << piped_err.err;
  EXPECT_EQ(piped_err.err.find('\x1b'), std::string::npos) << "stderr is a pipe: " << piped_err.err;

  CommandOptions stderr_on_terminal = stdout_on_terminal;
  stderr_on_terminal.terminal_stream = 2;
  auto terminal_err = run_zcuda(failing, stderr_on_terminal);
  EXPECT_EQ(terminal_err.exit_code, 3);
  EXPECT_NE(terminal_err.err.find("\x1b["), std::string::npos) << "stderr is a terminal: " << terminal_err.err;
#endif
}

}  // namespace
}  // namespace zcuda::test
