#pragma once
// The paired analysis of a bench (docs/bench.md): runs go in balanced blocks (A B B A, B A A B,
// ...), run i of A is paired with run i of B, and B against A is read from the pairs' log ratios
// of run summaries with a Student t interval. Everything here is recomputable by hand from the
// per-run summaries a record keeps.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/bench/stats.hpp>

namespace zcuda::bench {

// The method's name and version, as the record stores it.
inline constexpr std::string_view kPairedMethod = "paired-t-log-ratio/1";
// Fewer pairs than this give an interval but never a directional verdict.
inline constexpr int kMinPairsForVerdict = 5;
// The effect for which "pairs needed" is stated.
inline constexpr double kNeededForEffectPercent = 5.0;

// The launch order of `pairs` pairs: 0 for A, 1 for B. Blocks of four alternate A B B A and
// B A A B, so a linear drift cancels within every block and the first position in a pair falls
// to each side equally often. Without a seed the first block is A B B A; with one, the first
// block is B A A B when first_block_b(seed), so neither side always pays a cold first launch, and
// the drift left over by an odd pair count falls on either side alike.
std::vector<int> balanced_order(int pairs);
std::vector<int> balanced_order(int pairs, std::uint64_t seed);
// Whether the seed's order starts B A A B: the top bit of the seed's first splitmix64 draw.
bool first_block_b(std::uint64_t seed);
// "ABBABAAB...", as the record stores it.
std::string order_text(std::span<const int> order);

// Pairs whose log ratios all lie within this of each other agree: their ratios B/A are equal to
// a relative 1e-9 (quantised values, a program that prints a fixed figure), and the pairs show no
// spread to build an interval on. The verdict is then withheld, whatever the ratio.
inline constexpr double kAgreeingLogRatios = 1e-9;

// Outliers: Grubbs' test (a value's distance from the mean of the others, over their standard
// deviation, is Student t with n - 2 degrees of freedom; Bonferroni over the n values) at these
// levels, so a clean bench (normal run-to-run noise) names an outlier in at most 1% + 1% + 2% = 4%
// of benches. A named value is also at least 1% from the others' mean.
inline constexpr double kOutlierLevelPerSide = 0.01;
inline constexpr double kOutlierLevelPairs = 0.02;
inline constexpr double kOutlierLeastPercent = 1.0;

struct Pair {
  int number = 0;  // A's run n with B's run n: the runs' own numbers, warm-up and pilot runs counted
  double a = 0;    // the run summaries (median of each run's kept values)
  double b = 0;
  double log_ratio = 0;  // ln(b / a)
};

// A run whose summary is far from its side's others, or a pair far from the other pairs: named,
// never dropped.
struct Outlier {
  std::string what;                 // "A", "B" or "pair"
  int run = 0;                      // run (or pair) number
  double percent_from_typical = 0;  // from the mean of the others (log scale), in percent
};

struct PairedResult {
  std::vector<Pair> pairs;
  double b_vs_a_percent = 0;  // exp(mean log ratio) - 1, in percent
  // 95% t interval, percent; none below 2 pairs or when every pair agrees (kAgreeingLogRatios)
  std::optional<double> ci_low, ci_high;
  double sd_log = 0;  // sample standard deviation of the log ratios (0 when they agree)
  // The difference this run would find 80% of the time (two-sided 5%), from the pairs' spread;
  // none below kMinPairsForVerdict pairs (nothing is found there: no verdict is given) or when
  // every pair agrees.
  std::optional<double> smallest_detectable_percent;
  // With no clear difference: pairs (runs per variant) that would find kNeededForEffectPercent
  // 80% of the time at this spread; none when the verdict is directional or withheld.
  std::optional<int> pairs_needed;
  Verdict verdict = Verdict::no_clear_difference;
  std::string reason;  // why the verdict was withheld (Verdict::withheld): too few pairs, pairs that agree
  std::vector<Outlier> outliers;
};

// The analysis of run summaries paired by index (a[i] with b[i]: runs first_run + i). An error
// text (the verdict is invalid) when the counts differ, there are none, or a summary is not
// finite and > 0.
struct PairedOutcome {
  std::optional<PairedResult> result;
  std::string error;
};
PairedOutcome analyse_pairs(std::span<const double> a, std::span<const double> b, Better better, int first_run = 1);

// The values (log scale) Grubbs' test at `level` names, by index: each value is tested against
// the mean and standard deviation of the others, in one pass (nothing is removed and tested
// again). Fewer than 4 values name none.
std::vector<std::size_t> grubbs_outliers(std::span<const double> logs, double level);

// --runs auto (docs/bench.md). A pilot adds pairs, two at a time so blocks stay whole, until
// its interval's half-width is at most the target (checked from 6 measured pairs on, wherever a
// confirmation still fits under the cap); then as many fresh pairs as the pilot measured run, and
// the figure comes from them alone: the stop was decided on the pilot's spread, and a figure
// from the same pairs would be too narrow too often (6.5% A/A false positives instead of 5%).
// If the pilot never meets the target, pairs run to the cap and the figure is every measured pair.
class AutoRuns {
 public:
  // warmup_pairs: leading pairs that are warm-up (wall time), outside the pilot's figure.
  AutoRuns(double target_percent, int max_pairs, int warmup_pairs = 0);
  // Whether done() needs the pilot's half-width after `pairs` completed pairs.
  bool checks_at(int pairs) const;
  // After `pairs` completed pairs: true when no further pair should run. half_width: the
  // interval's half-width (percent) of the measured pilot pairs, when checks_at(pairs).
  bool done(int pairs, std::optional<double> half_width);
  // The pairs (warm-up included) that were the pilot, once its target was met.
  std::optional<int> pilot_pairs() const { return pilot_; }

 private:
  double target_;
  int max_pairs_;
  int warmup_pairs_;
  std::optional<int> pilot_;
};
// The first pairs used for the auto pilot's decision.
inline constexpr int kAutoFirstCheck = 6;

// "B is 3.0% slower than A (95% CI 1.9% to 4.1%)", "no clear difference (95% CI ...)" or, with a
// verdict withheld, "no verdict: ... (95% CI ...)".
std::string describe(const PairedResult& result, Better better);

// Student's t distribution (for the interval and the sample size): the CDF and its inverse.
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

}  // namespace zcuda::bench
