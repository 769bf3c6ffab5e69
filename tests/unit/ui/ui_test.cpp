#include <cstdlib>

#include <gtest/gtest.h>

#include <zcuda/ui/notice.hpp>
#include <zcuda/ui/style.hpp>
#include <zcuda/ui/table.hpp>

#include "support/environment.hpp"

namespace zcuda::ui {
namespace {

TEST(Style, NoColorWins) {
  {
    test::ScopedEnv no_color("NO_COLOR", "1");
    EXPECT_FALSE(Style::for_stdout(ColorMode::always).colored());
  }
  test::ScopedEnv unset("NO_COLOR", std::nullopt);
  EXPECT_TRUE(Style::for_stdout(ColorMode::always).colored());
  EXPECT_FALSE(Style::for_stdout(ColorMode::never).colored());
  EXPECT_EQ(Style::for_stdout(ColorMode::always).red("x"), "\x1b[31mx\x1b[0m");
}

// One format for zcuda's messages: "label: text", the label coloured only when the stream's
// style is; on stderr every line is prefixed "zcuda: ".
TEST(Notices, OneFormat) {
  const Style plain = Style::plain();
  EXPECT_EQ(notice_text(plain, NoticeKind::notice, "staged 3 files"), "staged 3 files");
  EXPECT_EQ(notice_text(plain, NoticeKind::warning, "w"), "warning: w");
  EXPECT_EQ(notice_text(plain, NoticeKind::hint, "h"), "hint: h");
  EXPECT_EQ(error_text(plain, Error{ErrorKind::io, "m", "do this", {"n1", "n2"}}, "zcuda: "),
            "zcuda: error: m\nzcuda: note: n1\nzcuda: note: n2\nzcuda: hint: do this\n");
  test::ScopedEnv unset("NO_COLOR", std::nullopt);
  EXPECT_EQ(notice_text(Style::for_stdout(ColorMode::always), NoticeKind::warning, "w"), "\x1b[33mwarning:\x1b[0m w");
}

TEST(Table, AlignsOnVisibleWidth) {
  Table t({"A", "B"});
  t.add_row({"\x1b[31mred\x1b[0m", "1"});
  t.add_row({"ü", "2"});
  EXPECT_EQ(t.render(""), "A    B\n\x1b[31mred\x1b[0m  1\nü    2\n");
  EXPECT_EQ(visible_width("\x1b[1mab\x1b[0m"), 2u);
}

}  // namespace
}  // namespace zcuda::ui
