#include <set>

#include <gtest/gtest.h>

#include <zcuda/base/error.hpp>
#include <zcuda/base/error_json.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>

namespace zcuda {
namespace {

TEST(ErrorKind, EveryKindHasItsOwnExitCode) {
  const ErrorKind kinds[] = {ErrorKind::usage,       ErrorKind::not_found,   ErrorKind::invalid_input, ErrorKind::network,     ErrorKind::integrity,
                             ErrorKind::incomplete,  ErrorKind::io,          ErrorKind::locked,        ErrorKind::environment, ErrorKind::conflict,
                             ErrorKind::interrupted, ErrorKind::unsupported, ErrorKind::mixed_family,  ErrorKind::internal};
  std::set<int> codes;
  std::set<std::string_view> names;
  for (ErrorKind kind : kinds) {
    int code = exit_code(kind);
    EXPECT_NE(code, 0);
    EXPECT_NE(code, 1) << "1 is left for commands that ran and report a negative outcome";
    codes.insert(code);
    names.insert(to_string(kind));
  }
  EXPECT_EQ(codes.size(), std::size(kinds));
  EXPECT_EQ(names.size(), std::size(kinds));
  EXPECT_EQ(exit_code(ErrorKind::usage), 2);
}

TEST(Error, FailCarriesMessageAndHint) {
  Result<int> r = fail(ErrorKind::not_found, "gone", "look elsewhere");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
  EXPECT_EQ(r.error().message, "gone");
  EXPECT_EQ(r.error().hint, "look elsewhere");
  Error e = Error{ErrorKind::io, "m", "h", {}}.with_note("n1").with_note("n2");
  EXPECT_EQ(e.notes.size(), 2u);
}

// A child's output in a legacy code page ("é" as the single byte 0xE9) must not end zcuda.
TEST(Error, OneJsonForm) {
  Error error{ErrorKind::integrity, "digest differs", "download it again", {"expected abc", "got def"}};
  const nlohmann::json json = error;
  EXPECT_EQ(json.at("kind"), "integrity");
  EXPECT_EQ(json.at("exit_code"), exit_code(ErrorKind::integrity));
  EXPECT_EQ(json.at("message"), "digest differs");
  EXPECT_EQ(json.at("hint"), "download it again");
  EXPECT_EQ(json.at("notes"), nlohmann::json({"expected abc", "got def"}));
  EXPECT_EQ(json.size(), 5u);
}

TEST(JsonText, InvalidUtf8IsReplacedNotThrown) {
  const nlohmann::json j = {{"line", std::string("path=C:\\caf\xe9")}};
  std::string text;
  ASSERT_NO_THROW(text = json_text(j));
  EXPECT_NE(text.find("caf\xef\xbf\xbd"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["line"], "path=C:\\caf\xef\xbf\xbd");
}

// Paths in messages: quoted, separators as they are, control characters escaped.
TEST(PathFormat, QuotedUnescapedAndSafe) {
  EXPECT_EQ(fmt::format("{}", std::filesystem::path(u8"/tmp/a b/é")), "\"/tmp/a b/é\"");
  EXPECT_EQ(fmt::format("{}", std::filesystem::path("a\\b")), "\"a\\b\"");
  EXPECT_EQ(fmt::format("{}", std::filesystem::path("evil\x1b[2Jname")), "\"evil\\x1b[2Jname\"");
}

}  // namespace
}  // namespace zcuda
