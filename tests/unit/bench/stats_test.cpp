// The statistics against values worked out by hand, and the A/A false-positive rate.
#include <random>

#include <gtest/gtest.h>

#include <zcuda/bench/stats.hpp>

namespace zcuda::bench {
namespace {

TEST(BenchStats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median({-1, -5}), -3);
}

TEST(BenchStats, SummaryHoldsMedianMinMax) {
  const std::vector<double> values = {13278, 12876, 13500, 12000, 13000};
  auto s = summarize(values);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->median, 13000);
  EXPECT_DOUBLE_EQ(s->min, 12000);
  EXPECT_DOUBLE_EQ(s->max, 13500);
  EXPECT_FALSE(summarize(std::vector<double>{}));
}

TEST(BenchStats, ConstantSeriesGiveAnExactIntervalAndTheSeedsFigure) {
  // The seed's comparison: 13,278 against 12,876 steps/s is B 3.03% below A.
  const std::vector<double> a(8, 13278), b(8, 12876);
  auto c = compare(a, b, Better::higher);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->b_vs_a_percent, (12876.0 - 13278.0) / 13278.0 * 100, 1e-12);
  EXPECT_NEAR(c->b_vs_a_percent, -3.0276, 1e-4);
  EXPECT_DOUBLE_EQ(c->ci_low, c->b_vs_a_percent);
  EXPECT_DOUBLE_EQ(c->ci_high, c->b_vs_a_percent);
  EXPECT_EQ(c->verdict, Verdict::a_better);
  EXPECT_EQ(describe(*c, Better::higher), "B is 3.0% slower than A (95% CI 3.0% to 3.0%)");
}

TEST(BenchStats, DirectionFollowsBetter) {
  // Wall time: B takes 10% longer, so with lower-is-better A is better and B is slower.
  const std::vector<double> a = {10, 10, 10}, b = {11, 11, 11};
  auto c = compare(a, b, Better::lower);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->b_vs_a_percent, 10, 1e-9);
  EXPECT_EQ(c->verdict, Verdict::a_better);
  EXPECT_EQ(describe(*c, Better::lower), "B is 10.0% slower than A (95% CI 10.0% to 10.0%)");
  auto faster = compare(b, a, Better::lower);
  ASSERT_TRUE(faster);
  EXPECT_EQ(faster->verdict, Verdict::b_better);
  EXPECT_EQ(describe(*faster, Better::lower), "B is 9.1% faster than A (95% CI 9.1% to 9.1%)");
}

TEST(BenchStats, SentencesAsAPersonReadsThem) {
  EXPECT_EQ(describe({-3.03, -4.1, -1.9, Verdict::a_better}, Better::higher), "B is 3.0% slower than A (95% CI 1.9% to 4.1%)");
  EXPECT_EQ(describe({3.03, 1.9, 4.1, Verdict::a_better}, Better::lower), "B is 3.0% slower than A (95% CI 1.9% to 4.1%)");
  EXPECT_EQ(describe({2.5, 1.0, 4.0, Verdict::b_better}, Better::higher), "B is 2.5% faster than A (95% CI 1.0% to 4.0%)");
  EXPECT_EQ(describe({0.1, -0.8, 1.1, Verdict::no_clear_difference}, Better::higher), "no clear difference (95% CI -0.8% to 1.1%)");
}

TEST(BenchStats, IntervalByHandForATwoValueSeries) {
  // A = {100, 100}; B = {90, 110}. A resample of B has median 90 (1/4), 100 (1/2) or 110 (1/4),
  // so B against A is -10%, 0% or +10% with those chances: the interval is [-10, 10] and the
  // median difference 0.
  const std::vector<double> a = {100, 100}, b = {90, 110};
  auto c = compare(a, b, Better::higher, {7, 4000});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->b_vs_a_percent, 0);
  EXPECT_DOUBLE_EQ(c->ci_low, -10);
  EXPECT_DOUBLE_EQ(c->ci_high, 10);
  EXPECT_EQ(c->verdict, Verdict::no_clear_difference);
}

TEST(BenchStats, SameSeedSameInterval) {
  const std::vector<double> a = {10, 11, 12, 10.5, 11.5}, b = {11, 12, 13, 11.5, 12.5};
  auto first = compare(a, b, Better::higher, {42, 2000});
  auto again = compare(a, b, Better::higher, {42, 2000});
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->ci_low, again->ci_low);
  EXPECT_EQ(first->ci_high, again->ci_high);
}

TEST(BenchStats, NoComparisonWithoutValuesOrFromZero) {
  EXPECT_FALSE(compare(std::vector<double>{}, std::vector<double>{1}, Better::higher));
  EXPECT_FALSE(compare(std::vector<double>{0, 0, 0}, std::vector<double>{1}, Better::higher));
}

// Synthetic series of the seed's shape (2 runs x 4 kept values per variant) with ~1% noise.
std::vector<double> series(std::mt19937_64& engine, double centre) {
  std::normal_distribution<double> noise(0, 0.01 * centre);
  std::vector<double> out(8);
  for (auto& v : out) v = centre + noise(engine);
  return out;
}

TEST(BenchStats, TenPercentSlowerIsFoundWithTheRightSign) {
  std::mt19937_64 engine(1);
  int found = 0;
  for (int i = 0; i < 50; ++i) {
    auto c = compare(series(engine, 1000), series(engine, 900), Better::higher, {static_cast<std::uint64_t>(i), 1000});
    ASSERT_TRUE(c);
    if (c->verdict == Verdict::a_better && c->ci_high < 0) ++found;
    EXPECT_NEAR(c->b_vs_a_percent, -10, 2);
  }
  EXPECT_EQ(found, 50);
}

TEST(BenchStats, AaFalsePositiveRateStaysNearFivePercent) {
  std::mt19937_64 engine(2026);
  const int series_count = 400;
  int false_positives = 0;
  for (int i = 0; i < series_count; ++i) {
    auto c = compare(series(engine, 1000), series(engine, 1000), Better::higher, {static_cast<std::uint64_t>(i), 1000});
    ASSERT_TRUE(c);
    if (c->verdict != Verdict::no_clear_difference) ++false_positives;
  }
  const double rate = static_cast<double>(false_positives) / series_count;
  // A 95% interval should be wrong about 5% of the time; 400 series leave about +-2.2% of
  // sampling error, and a small-sample median bootstrap errs on the cautious side.
  EXPECT_GE(rate, 0.01) << false_positives;
  EXPECT_LE(rate, 0.09) << false_positives;
}

}  // namespace
}  // namespace zcuda::bench
