// The paired analysis: the run order, the interval by hand, the withheld verdicts, and simulated
// A/A false-positive rates and power (the table in docs/bench.md comes from
// PairedSimulation.FalsePositivesAndPower's output).
#include <cmath>
#include <cstdint>
#include <iostream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <zcuda/bench/paired.hpp>

namespace zcuda::bench {
namespace {

TEST(PairedOrder, BlocksAlternateABBAandBAAB) {
  EXPECT_EQ(order_text(balanced_order(4)), "ABBABAAB");
  EXPECT_EQ(order_text(balanced_order(5)), "ABBABAABAB");
  EXPECT_EQ(order_text(balanced_order(8)), "ABBABAABABBABAAB");
  // Every pair (steps 2i, 2i+1) holds one A and one B, so run i of A meets run i of B.
  const auto order = balanced_order(10);
  for (std::size_t i = 0; i < order.size(); i += 2) EXPECT_NE(order[i], order[i + 1]) << i;
}

TEST(PairedOrder, LinearDriftCancelsOverEveryTwoBlocks) {
  // A drift of 1 per step: B - A summed over the pairs of whole blocks is 0.
  for (int pairs : {2, 4, 6, 8}) {
    const auto order = balanced_order(pairs);
    double sum = 0;
    for (std::size_t i = 0; i < order.size(); ++i) sum += order[i] == 1 ? static_cast<double>(i) : -static_cast<double>(i);
    EXPECT_EQ(sum, 0) << pairs;
  }
}

TEST(StudentT, QuantilesMatchTheTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 7), 2.364624, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.80, 9), 0.883404, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706205, 1e-4);
  EXPECT_NEAR(student_t_cdf(0, 3), 0.5, 1e-12);
}

TEST(Paired, IntervalByHand) {
  // Log ratios ln 1.02, ln 0.99, ln 1.03, ln 1.00, ln 1.01: mean m, sd s, t(0.975, 4) = 2.776445.
  const std::vector<double> a = {100, 100, 100, 100, 100}, b = {102, 99, 103, 100, 101};
  auto out = analyse_pairs(a, b, Better::higher);
  ASSERT_TRUE(out.result) << out.error;
  const auto& r = *out.result;
  double m = 0, ss = 0;
  for (double x : b) m += std::log(x / 100) / 5;
  for (double x : b) ss += (std::log(x / 100) - m) * (std::log(x / 100) - m);
  const double half = 2.776445 * std::sqrt(ss / 4) / std::sqrt(5.0);
  EXPECT_NEAR(r.b_vs_a_percent, std::expm1(m) * 100, 1e-9);
  EXPECT_NEAR(*r.ci_low, std::expm1(m - half) * 100, 1e-4);
  EXPECT_NEAR(*r.ci_high, std::expm1(m + half) * 100, 1e-4);
  EXPECT_EQ(r.verdict, Verdict::no_clear_difference);
  ASSERT_TRUE(r.pairs_needed);
  EXPECT_GE(*r.pairs_needed, 5);
  ASSERT_TRUE(r.smallest_detectable_percent);
  EXPECT_GT(*r.smallest_detectable_percent, *r.ci_high - r.b_vs_a_percent);
}

TEST(Paired, ClearSlowdownHasTheRightSignForEitherDirection) {
  const std::vector<double> a = {100, 101, 99, 100, 102, 98}, b = {90, 92, 89, 91, 91, 88};
  auto higher = analyse_pairs(a, b, Better::higher);
  ASSERT_TRUE(higher.result);
  EXPECT_EQ(higher.result->verdict, Verdict::a_better);
  EXPECT_TRUE(describe(*higher.result, Better::higher).starts_with("B is 9.")) << describe(*higher.result, Better::higher);
  EXPECT_FALSE(higher.result->pairs_needed);
  auto lower = analyse_pairs(a, b, Better::lower);  // wall time: B took less
  EXPECT_EQ(lower.result->verdict, Verdict::b_better);
}

TEST(Paired, NoVerdictBelowFivePairsOrFromAZeroWidthInterval) {
  const std::vector<double> a4 = {100, 100, 100, 100}, b4 = {120, 121, 119, 120};
  auto few = analyse_pairs(a4, b4, Better::higher);
  ASSERT_TRUE(few.result);
  EXPECT_EQ(few.result->verdict, Verdict::no_clear_difference);
  EXPECT_TRUE(describe(*few.result, Better::higher).starts_with("no verdict: 4 pairs (a verdict needs 5)")) << describe(*few.result, Better::higher);
  // Quantised values: every pair exactly 1% apart.
  const std::vector<double> a = {100, 100, 100, 100, 100}, b = {101, 101, 101, 101, 101};
  auto flat = analyse_pairs(a, b, Better::higher);
  ASSERT_TRUE(flat.result);
  EXPECT_EQ(flat.result->verdict, Verdict::no_clear_difference);
  EXPECT_NE(flat.result->reason.find("no width"), std::string::npos);
  const std::vector<double> one = {5};
  auto single = analyse_pairs(one, one, Better::higher);
  ASSERT_TRUE(single.result);
  EXPECT_FALSE(single.result->ci_low);
  EXPECT_TRUE(describe(*single.result, Better::higher).starts_with("no verdict: one pair"));
}

TEST(Paired, ValuesMustBeFiniteAndAboveZero) {
  const std::vector<double> a = {100, 100, 0, 100, 100}, b = {100, 100, 100, 100, 100};
  auto zero = analyse_pairs(a, b, Better::higher);
  EXPECT_FALSE(zero.result);
  EXPECT_NE(zero.error.find("A run 3"), std::string::npos) << zero.error;
  const std::vector<double> nan = {100, NAN, 100, 100, 100};
  EXPECT_FALSE(analyse_pairs(a, nan, Better::higher).result);
  const std::vector<double> shorter = {100, 100};
  EXPECT_FALSE(analyse_pairs(shorter, b, Better::higher).result);
}

TEST(Paired, AFarRunIsNamed) {
  // A run slow from start to end, as A's run 3 of the committed A/A record was (415,829).
  const std::vector<double> a = {480000, 485000, 415829, 478000, 482000, 479000, 484000, 481000};
  const std::vector<double> b = {516922, 500186, 512853, 511187, 510009, 505000, 498000, 507000};
  auto out = analyse_pairs(a, b, Better::higher);
  ASSERT_TRUE(out.result);
  bool named = false;
  for (const auto& o : out.result->outliers) named = named || (o.what == "A" && o.run == 3 && o.percent_from_typical < -10);
  EXPECT_TRUE(named);
  EXPECT_EQ(out.result->pairs.size(), 8u);  // nothing dropped
}

// splitmix64: the same sequence from every compiler and standard library.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {                                                           // Box-Muller
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * v);
  }
};

enum class Scenario { normal, drift, tail_slow, tail_both };
constexpr const char* kScenarioNames[] = {"run sd 5%", "+ drift 1%/run", "+ 1 run in 10 slower by 10-20%", "+ 1 run in 10 off by 10-20%, either way"};

// One simulated bench: run summaries (throughput, higher is better) in the balanced order, with
// a run-to-run spread of 5% and the scenario's disturbance; B's true level is (1 + effect) x A's.
bool finds_difference(SplitMix& rng, Scenario scenario, int pairs, double effect) {
  const auto order = balanced_order(pairs);
  std::vector<double> a, b;
  for (std::size_t step = 0; step < order.size(); ++step) {
    double log_value = std::log(1000.0) + 0.05 * rng.normal();
    if (order[step] == 1) log_value += std::log1p(effect);
    if (scenario == Scenario::drift) log_value += std::log1p(-0.01 * static_cast<double>(step));
    if ((scenario == Scenario::tail_slow || scenario == Scenario::tail_both) && rng.uniform() < 0.1) {
      const double size = 0.10 + 0.10 * rng.uniform();
      const bool slower = scenario == Scenario::tail_slow || rng.uniform() < 0.5;
      log_value += slower ? std::log1p(-size) : std::log1p(size);
    }
    (order[step] == 0 ? a : b).push_back(std::exp(log_value));
  }
  auto out = analyse_pairs(a, b, Better::higher);
  return out.result && out.result->verdict != Verdict::no_clear_difference;
}

TEST(PairedSimulation, FalsePositivesAndPower) {
  constexpr int kComparisons = 1000;
  std::cout << "| scenario | pairs | A/A claims a difference | finds a true 5% | finds a true 10% |\n|---|---|---|---|---|\n";
  for (int s = 0; s < 4; ++s) {
    for (int pairs : {5, 8, 10}) {
      double rates[3];
      for (int e = 0; e < 3; ++e) {
        SplitMix rng{std::uint64_t{0x5eed0000} + static_cast<std::uint64_t>(s * 1000 + pairs * 10 + e)};
        int found = 0;
        for (int i = 0; i < kComparisons; ++i) found += finds_difference(rng, static_cast<Scenario>(s), pairs, 0.05 * e) ? 1 : 0;
        rates[e] = 100.0 * found / kComparisons;
      }
      std::cout << fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}% |\n", kScenarioNames[s], pairs, rates[0], rates[1], rates[2]);
      EXPECT_GE(rates[0], 3.0) << kScenarioNames[s] << ", " << pairs << " pairs";
      EXPECT_LE(rates[0], 7.0) << kScenarioNames[s] << ", " << pairs << " pairs";
      EXPECT_GT(rates[2], rates[0]) << kScenarioNames[s] << ", " << pairs << " pairs";
    }
  }
}

}  // namespace
}  // namespace zcuda::bench
