#include <gtest/gtest.h>

#include <zcuda/bench/metric.hpp>

namespace zcuda::bench {
namespace {

TEST(BenchMetric, NeedsExactlyOneCaptureGroup) {
  EXPECT_TRUE(Metric::compile("overall_sps ([0-9.]+)"));
  auto none = Metric::compile("overall_sps [0-9.]+");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::usage);
  EXPECT_NE(none.error().message.find("0 capture groups"), std::string::npos) << none.error().message;
  auto two = Metric::compile("(a)(b)");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("2 capture groups"), std::string::npos);
  auto broken = Metric::compile("([0-9");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().kind, ErrorKind::usage);
  EXPECT_NE(broken.error().message.find("not a valid regular expression"), std::string::npos);
}

TEST(BenchMetric, EveryMatchIsOneValueInOrder) {
  auto m = Metric::compile("overall_sps ([-+0-9.eE]+)");
  ASSERT_TRUE(m);
  const std::string output =
      "parameters 2216347\n"
      "iter 1 overall_sps 1200.5 collection_sps 3000\n"
      "iter 2 overall_sps 13278 collection_sps 3000\r\n"
      "noise overall_sps 1.5e4 overall_sps 2\n"
      "iter 4 overall_sps 12876.25";
  auto v = m->extract(output);
  EXPECT_EQ(v.values, (std::vector<double>{1200.5, 13278, 15000, 2, 12876.25}));
  EXPECT_TRUE(v.rejected.empty());
}

TEST(BenchMetric, CapturesThatAreNotNumbersAreKept) {
  auto m = Metric::compile("sps ([^ ]+)");
  ASSERT_TRUE(m);
  auto v = m->extract("sps 12\nsps nan\nsps 1.2.3\nsps inf\n");
  EXPECT_EQ(v.values, (std::vector<double>{12}));
  EXPECT_EQ(v.rejected, (std::vector<std::string>{"nan", "1.2.3", "inf"}));
}

// Issue 33: a negative value (or 0) was accepted as a measurement; a bench compares ratios, so
// such a value is a broken run, named as such.
TEST(BenchMetric, ValuesAtOrBelowZeroAreRejected) {
  auto m = Metric::compile("loss ([-0-9.]+)");
  ASSERT_TRUE(m);
  auto v = m->extract("loss 1.5\nloss -0.25\nloss 0\nloss 2\n");
  EXPECT_EQ(v.values, (std::vector<double>{1.5, 2}));
  EXPECT_EQ(v.rejected, (std::vector<std::string>{"-0.25", "0"}));
}

TEST(BenchMetric, LongOutputIsReadLineByLine) {
  auto m = Metric::compile("v=([0-9]+)");
  ASSERT_TRUE(m);
  std::string output(1u << 20, 'x');  // one 1 MiB line without a match, then values
  output += "\nv=1\nv=2\n";
  auto v = m->extract(output);
  EXPECT_EQ(v.values, (std::vector<double>{1, 2}));
}

}  // namespace
}  // namespace zcuda::bench
