#include <gtest/gtest.h>

#include <zcuda/platform/process.hpp>

namespace zcuda::platform {
namespace {

// Expected strings follow the documented MSVC runtime / CommandLineToArgvW rules.
TEST(WindowsQuoting, PlainArgumentsStayAsTheyAre) {
  EXPECT_EQ(quote_windows_argument("abc"), "abc");
  EXPECT_EQ(quote_windows_argument("C:\\dir\\file.txt"), "C:\\dir\\file.txt");
}

TEST(WindowsQuoting, EmptyAndSpaces) {
  EXPECT_EQ(quote_windows_argument(""), "\"\"");
  EXPECT_EQ(quote_windows_argument("a b"), "\"a b\"");
  EXPECT_EQ(quote_windows_argument("tab\there"), "\"tab\there\"");
}

TEST(WindowsQuoting, QuotesAndBackslashes) {
  EXPECT_EQ(quote_windows_argument("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(quote_windows_argument("C:\\path with space\\"), "\"C:\\path with space\\\\\"");
  EXPECT_EQ(quote_windows_argument("a\\\\\"b"), "\"a\\\\\\\\\\\"b\"");
  EXPECT_EQ(quote_windows_argument("\\\\server\\share"), "\\\\server\\share");
}

TEST(WindowsQuoting, CommandLineQuotesProgramOnlyWhenNeeded) {
  EXPECT_EQ(windows_command_line("app.exe", {"a", "b c"}), "app.exe a \"b c\"");
  EXPECT_EQ(windows_command_line("C:\\Program Files\\x\\app.exe", {}), "\"C:\\Program Files\\x\\app.exe\"");
}

}  // namespace
}  // namespace zcuda::platform
