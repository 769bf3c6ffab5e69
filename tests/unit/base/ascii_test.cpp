#include <gtest/gtest.h>

#include <zcuda/base/ascii.hpp>

namespace zcuda {
namespace {

TEST(Ascii, FoldsOnlyAsciiLetters) {
  EXPECT_EQ(ascii_lower("CuBLAS64_12.DLL"), "cublas64_12.dll");
  EXPECT_EQ(ascii_upper("zluda-Token_1"), "ZLUDA-TOKEN_1");
  // Bytes of UTF-8 text (é is C3 A9; É is C3 89) pass through untouched: no locale decides.
  EXPECT_EQ(ascii_lower("\xC3\x89"
                        "COLE"),
            "\xC3\x89"
            "cole");
  EXPECT_EQ(ascii_upper("\xC3\xA9"
                        "cole"),
            "\xC3\xA9"
            "COLE");
}

TEST(Ascii, ComparesWithoutCase) {
  EXPECT_TRUE(ascii_iequals("Content-Range", "content-range"));
  EXPECT_TRUE(ascii_iequals("", ""));
  EXPECT_FALSE(ascii_iequals("etag", "etags"));
  EXPECT_FALSE(ascii_iequals("\xC3\xA9", "\xC3\x89"));
}

TEST(Ascii, ContainsWithoutCase) {
  EXPECT_TRUE(ascii_icontains("CUBLAS64_12.DLL", ".dll"));
  EXPECT_TRUE(ascii_icontains("libcuda.so.1", ".so"));
  EXPECT_TRUE(ascii_icontains("nvcuda", "nvcuda"));
  EXPECT_TRUE(ascii_icontains("x", ""));
  EXPECT_FALSE(ascii_icontains("libcuda", ".so"));
  EXPECT_FALSE(ascii_icontains(".s", ".so"));
  EXPECT_FALSE(ascii_icontains("libamdhip64.s0", ".so"));
}

}  // namespace
}  // namespace zcuda
