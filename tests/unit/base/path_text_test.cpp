#include <gtest/gtest.h>

#include <zcuda/base/path_text.hpp>

namespace zcuda {
namespace {

// Round trips through the path type keep the UTF-8 bytes on every platform (MinGW's narrow
// conversion would take them one by one as characters; MSVC's as the ANSI code page).
TEST(PathText, Utf8RoundTrip) {
  const std::string text = "Jos\xC3\xA9/caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC/lib.so";
  EXPECT_EQ(generic_path_to_utf8(path_from_utf8(text)), text);
  EXPECT_EQ(path_to_utf8(path_from_utf8(text).filename()), "lib.so");
  EXPECT_EQ(path_to_utf8(path_from_utf8("Jos\xC3\xA9").filename()), "Jos\xC3\xA9");
}

TEST(PathText, GenericUsesForwardSlashes) {
  const auto path = path_from_utf8("a") / "b" / "c.txt";
  EXPECT_EQ(generic_path_to_utf8(path), "a/b/c.txt");
}

}  // namespace
}  // namespace zcuda
