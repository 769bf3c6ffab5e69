// The encoding of the user's arguments for each way a zluda.exe joins them: encode, join as the
// launcher would, split as the target does, and the target must hold exactly what was given.
#include <gtest/gtest.h>

#include <zcuda/launch/launcher_encoding.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::launch {
namespace {

using Args = std::vector<std::string>;

const Args hostile = {"",   " ",    "a b",      "\"quoted\"", "it's", "back\\slash", "trail\\", "\\\"", "\xC3\xBCn\xC3\xAF",
                      "--", "a\tb", "x\\\\\"y", "\"",         "\\\\", "--json",      "%PATH%"};

// What the target receives when this launcher gets these arguments after "--".
Args received_through(LauncherJoin join, const Args& launcher_args) {
  const Args rest(launcher_args.begin() + 1, launcher_args.end());
  return split_windows_command_line(join_as_launcher(join, launcher_args.front(), rest));
}

TEST(SplitWindowsCommandLine, FollowsCommandLineToArgvW) {
  EXPECT_EQ(split_windows_command_line(R"(prog a "b c" "" d\"e f\\"g h" i\\\\j)"), (Args{"prog", "a", "b c", "", "d\"e", "f\\g h", "i\\\\\\\\j"}));
  // The program name: no escapes, a quoted one ends at the next quote.
  EXPECT_EQ(split_windows_command_line(R"("C:\Program Files\a\b.exe" x)"), (Args{"C:\\Program Files\\a\\b.exe", "x"}));
  EXPECT_EQ(split_windows_command_line(R"(C:\Program Files\a.exe x)"), (Args{"C:\\Program", "Files\\a.exe", "x"}));
  EXPECT_EQ(split_windows_command_line("p \t  a\t"), (Args{"p", "a"}));
  EXPECT_EQ(split_windows_command_line(R"(p "a""b")"), (Args{"p", "a\"b"}));
}

TEST(SplitWindowsCommandLine, UndoesThePlatformQuoting) {
  const auto split = split_windows_command_line(platform::windows_command_line("C:\\Program Files\\app.exe", hostile));
  EXPECT_EQ(split.front(), "C:\\Program Files\\app.exe");
  EXPECT_EQ(Args(split.begin() + 1, split.end()), hostile);
}

TEST(LauncherArguments, EveryJoinDeliversTheArgumentsExactly) {
  for (const std::string program : {"C:\\apps\\app.exe", "C:\\Program Files\\My App\\app.exe", "C:\\Users\\J\xC3\xB6rg Smith\\a.exe"}) {
    for (auto join : {LauncherJoin::quoting, LauncherJoin::spaces}) {
      auto encoded = launcher_arguments(join, program, hostile);
      ASSERT_TRUE(encoded) << encoded.error().message;
      auto received = received_through(join, *encoded);
      EXPECT_EQ(received.front(), program) << to_string(join);
      EXPECT_EQ(Args(received.begin() + 1, received.end()), hostile) << to_string(join) << " " << program;
    }
  }
}

TEST(LauncherArguments, QuotingLaunchersGetTheArgumentsAsGiven) {
  auto encoded = launcher_arguments(LauncherJoin::quoting, "C:\\a b\\p.exe", {"x y", ""});
  ASSERT_TRUE(encoded);
  EXPECT_EQ(*encoded, (Args{"C:\\a b\\p.exe", "x y", ""}));
}

TEST(LauncherArguments, SpaceJoiningLaunchersGetPreQuotedArguments) {
  auto encoded = launcher_arguments(LauncherJoin::spaces, "C:\\a b\\p.exe", {"x y", "", "plain", "tail\\"});
  ASSERT_TRUE(encoded);
  EXPECT_EQ(*encoded, (Args{"\"C:\\a b\\p.exe\"", "\"x y\"", "\"\"", "plain", "tail\\"}));
}

TEST(LauncherArguments, NoSeparatorCarriesAtMostOneArgument) {
  for (const Args& args : {Args{}, Args{"one arg"}, Args{""}}) {
    auto encoded = launcher_arguments(LauncherJoin::no_separator, "C:\\a b\\p.exe", args);
    ASSERT_TRUE(encoded) << encoded.error().message;
    auto received = received_through(LauncherJoin::no_separator, *encoded);
    EXPECT_EQ(received.front(), "C:\\a b\\p.exe");
    EXPECT_EQ(Args(received.begin() + 1, received.end()), args);
  }
  auto refused = launcher_arguments(LauncherJoin::no_separator, "C:\\p.exe", {"a", "b"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::unsupported);
  EXPECT_NE(refused.error().message.find("2 arguments"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().hint.find("--direct"), std::string::npos) << refused.error().hint;
}

TEST(LauncherArguments, AQuoteInTheProgramPathIsRefused) {
  auto refused = launcher_arguments(LauncherJoin::spaces, "C:\\a\"b\\p.exe", {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().hint.find("--direct"), std::string::npos);
}

TEST(ClassifyEcho, TellsEachJoinApart) {
  const auto& sent = echo_sample_arguments();
  for (const std::string program : {"C:\\zcuda\\zcuda-probe.exe", "C:\\Program Files\\zcuda\\zcuda-probe.exe"}) {
    for (auto join : {LauncherJoin::quoting, LauncherJoin::spaces, LauncherJoin::no_separator}) {
      // What an echo target prints: its argv after argv[0], split from the line the launcher built.
      auto split = split_windows_command_line(join_as_launcher(join, program, sent));
      const Args received(split.begin() + 1, split.end());
      auto classified = classify_echo(program, sent, received);
      ASSERT_TRUE(classified) << to_string(join);
      EXPECT_EQ(*classified, join) << program;
    }
  }
  // The plain-space join loses the empty argument and the quotes.
  EXPECT_EQ(classify_echo("p.exe", sent, {"a", "b", "q", "back\\", sent.back()}), LauncherJoin::spaces);
  EXPECT_EQ(classify_echo("p.exe", sent, sent), LauncherJoin::quoting);
  // Wine quotes an unquoted program path it found by trying each space; the join is the same.
  EXPECT_EQ(classify_echo("C:\\Program Files\\p.exe", sent, {"a", "b", "q", "back\\", sent.back()}), LauncherJoin::spaces);
  EXPECT_FALSE(classify_echo("p.exe", sent, {"something", "else"}));
  EXPECT_FALSE(classify_echo("p.exe", sent, {}));
}

TEST(LauncherJoinNames, RoundTrip) {
  for (auto join : {LauncherJoin::quoting, LauncherJoin::spaces, LauncherJoin::no_separator}) {
    EXPECT_EQ(launcher_join_from_string(to_string(join)), join);
  }
  EXPECT_FALSE(launcher_join_from_string("tabs"));
}

}  // namespace
}  // namespace zcuda::launch
