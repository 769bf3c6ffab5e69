#include <gtest/gtest.h>

#include <zcuda/base/units.hpp>

namespace zcuda {
namespace {

TEST(Units, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(17163091968ull), "16.0 GiB");
}

TEST(Units, Duration) {
  EXPECT_EQ(format_duration(1.25), "1.2 s");
  EXPECT_EQ(format_duration(184), "3 min 04 s");
  EXPECT_EQ(format_duration(3720), "1 h 02 min");
}

}  // namespace
}  // namespace zcuda
