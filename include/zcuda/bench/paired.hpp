#pragma once
// The paired analysis of a bench (docs/bench.md): runs go in balanced blocks (A B B A, B A A B,
// ...), run i of A is paired with run i of B, and B against A is read from the pairs' log ratios
// of run summaries with a Student t interval. Everything here is recomputable by hand from the
// per-run summaries a record keeps.
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
// to each side equally often.
std::vector<int> balanced_order(int pairs);
// "ABBABAAB...", as the record stores it.
std::string order_text(std::span<const int> order);

struct Pair {
  int number = 0;  // 1..n: A's run n with B's run n
  double a = 0;    // the run summaries (median of each run's kept values)
  double b = 0;
  double log_ratio = 0;  // ln(b / a)
};

// A run whose summary is far from its side's others, or a pair far from the other pairs: named,
// never dropped.
struct Outlier {
  std::string what;  // "A", "B" or "pair"
  int run = 0;       // run (or pair) number
  double percent_from_typical = 0;
};

struct PairedResult {
  std::vector<Pair> pairs;
  double b_vs_a_percent = 0;              // exp(mean log ratio) - 1, in percent
  std::optional<double> ci_low, ci_high;  // 95% t interval, percent; none below 2 pairs
  double sd_log = 0;                      // sample standard deviation of the log ratios
  // The difference this run would find 80% of the time (two-sided 5%), from the pairs' spread.
  std::optional<double> smallest_detectable_percent;
  // With no clear difference: pairs (runs per variant) that would find kNeededForEffectPercent
  // 80% of the time at this spread; none when the verdict is directional.
  std::optional<int> pairs_needed;
  Verdict verdict = Verdict::no_clear_difference;
  std::string reason;  // why a verdict was withheld: too few pairs, a zero-width interval
  std::vector<Outlier> outliers;
};

// The analysis of run summaries paired by index (a[i] with b[i]). An error text (the verdict is
// invalid) when the counts differ, there are none, or a summary is not finite and > 0.
struct PairedOutcome {
  std::optional<PairedResult> result;
  std::string error;
};
PairedOutcome analyse_pairs(std::span<const double> a, std::span<const double> b, Better better);

// "B is 3.0% slower than A (95% CI 1.9% to 4.1%)", "no clear difference (95% CI ...)" or, with a
// verdict withheld, "no verdict: ... (95% CI ...)".
std::string describe(const PairedResult& result, Better better);

// Student's t distribution (for the interval and the sample size): the CDF and its inverse.
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

}  // namespace zcuda::bench
