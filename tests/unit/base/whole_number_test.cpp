#include <gtest/gtest.h>

#include <cstdint>
#include <zcuda/base/whole_number.hpp>

namespace zcuda {
namespace {

TEST(WholeNumber, TheWholeTextOrNothing) {
  EXPECT_EQ(whole_number<int>("42"), 42);
  EXPECT_EQ(whole_number<int>("0"), 0);
  EXPECT_FALSE(whole_number<int>(""));
  EXPECT_FALSE(whole_number<int>("12abc"));
  EXPECT_FALSE(whole_number<int>(" 12"));
  EXPECT_FALSE(whole_number<int>("12 "));
  EXPECT_FALSE(whole_number<int>("1.5"));
}

TEST(WholeNumber, OutOfRangeAndSignFollowTheType) {
  EXPECT_FALSE(whole_number<std::uint8_t>("256"));
  EXPECT_EQ(whole_number<std::uint8_t>("255"), 255);
  EXPECT_FALSE(whole_number<unsigned>("-1"));
  EXPECT_EQ(whole_number<int>("-1"), -1);
  EXPECT_EQ(whole_number<std::uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(whole_number<std::uint64_t>("18446744073709551616"));
}

TEST(WholeNumber, OtherBases) {
  EXPECT_EQ(whole_number<std::uint32_t>("73bf", 16), 0x73bfu);
  EXPECT_EQ(whole_number<std::uint32_t>("73BF", 16), 0x73bfu);
  EXPECT_FALSE(whole_number<std::uint32_t>("0x73bf", 16));
}

}  // namespace
}  // namespace zcuda
