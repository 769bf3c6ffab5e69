#include <zcuda/bench/paired.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace zcuda::bench {

namespace {

std::vector<int> blocks_from(int pairs, bool b_first) {
  std::vector<int> out;
  for (int step = 0; step < 2 * pairs; ++step) {
    const int block = step / 4;
    const int at = step % 4;
    const bool a_first_block = (block % 2 == 0) != b_first;  // A B B A, then B A A B (or the other way)
    const bool a_here = (at == 0 || at == 3) == a_first_block;
    out.push_back(a_here ? 0 : 1);
  }
  return out;
}

}  // namespace

std::vector<int> balanced_order(int pairs) { return blocks_from(pairs, false); }

std::vector<int> balanced_order(int pairs, std::uint64_t seed) { return blocks_from(pairs, first_block_b(seed)); }

bool first_block_b(std::uint64_t seed) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;  // splitmix64's first draw
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (z >> 63) != 0;
}

std::string order_text(std::span<const int> order) {
  std::string out;
  for (int side : order) out += side == 0 ? 'A' : 'B';
  return out;
}

namespace {

// The continued fraction of the regularised incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double mean_of(std::span<const double> v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

double percent_of_log(double log_ratio) { return std::expm1(log_ratio) * 100.0; }

// Grubbs' test on one family (A's runs, B's runs or the pairs), each named value recorded.
void flag_outliers(std::span<const double> logs, const std::string& what, double level, int first_run, std::vector<Outlier>& out) {
  for (std::size_t i : grubbs_outliers(logs, level)) {
    double others = 0;
    for (std::size_t j = 0; j < logs.size(); ++j) others += j == i ? 0 : logs[j];
    others /= static_cast<double>(logs.size() - 1);
    out.push_back({what, first_run + static_cast<int>(i), percent_of_log(logs[i] - others)});
  }
}

constexpr int kMostPairs = 1000;

// t quantiles for 1..kMostPairs-1 degrees of freedom, computed once: the sample-size search and
// the simulations ask for them thousands of times.
struct TQuantiles {
  std::vector<double> upper975, upper80;
  TQuantiles() {
    for (int df = 1; df < kMostPairs; ++df) {
      upper975.push_back(student_t_quantile(0.975, df));
      upper80.push_back(student_t_quantile(0.80, df));
    }
  }
};
const TQuantiles& t_table() {
  static const TQuantiles table;
  return table;
}

// The smallest log difference found 80% of the time by a two-sided 5% t test over n pairs.
double detectable_log(double sd, int n) {
  const auto& t = t_table();
  const auto i = static_cast<std::size_t>(n - 2);
  return (t.upper975[i] + t.upper80[i]) * sd / std::sqrt(static_cast<double>(n));
}

std::optional<int> pairs_for(double sd, double effect_percent) {
  const double effect = std::log1p(effect_percent / 100.0);
  constexpr int kMost = kMostPairs;
  if (detectable_log(sd, kMost) > effect) return std::nullopt;
  int low = kMinPairsForVerdict, high = kMost;  // detectable_log falls with n
  if (detectable_log(sd, low) <= effect) return low;
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (detectable_log(sd, mid) <= effect ? high : low) = mid;
  }
  return high;
}

}  // namespace

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  double low = -1e4, high = 1e4;
  for (int i = 0; i < 100 && high - low > 1e-12; ++i) {
    const double mid = (low + high) / 2;
    (student_t_cdf(mid, df) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

std::vector<std::size_t> grubbs_outliers(std::span<const double> logs, double level) {
  const std::size_t n = logs.size();
  std::vector<std::size_t> out;
  if (n < 4) return out;
  const double df = static_cast<double>(n - 2);
  for (std::size_t i = 0; i < n; ++i) {
    // The mean and standard deviation of the others: the value itself cannot hide in them.
    double mean = 0;
    for (std::size_t j = 0; j < n; ++j) mean += j == i ? 0 : logs[j];
    mean /= static_cast<double>(n - 1);
    double squares = 0;
    for (std::size_t j = 0; j < n; ++j) squares += j == i ? 0 : (logs[j] - mean) * (logs[j] - mean);
    const double sd = std::sqrt(squares / df);
    const double distance = std::fabs(logs[i] - mean);
    if (std::fabs(percent_of_log(logs[i] - mean)) < kOutlierLeastPercent) continue;
    // (x - mean of others) / (sd of others * sqrt(1 + 1/(n-1))) is Student t, n - 2 degrees of
    // freedom, for normal values; its two-sided tail below level / n names the value.
    const double t = sd > 0 ? distance / (sd * std::sqrt(1 + 1 / static_cast<double>(n - 1))) : HUGE_VAL;
    const double tail = 2 * student_t_cdf(-t, df);
    if (tail < level / static_cast<double>(n)) out.push_back(i);
  }
  return out;
}

PairedOutcome analyse_pairs(std::span<const double> a, std::span<const double> b, Better better, int first_run) {
  if (a.size() != b.size()) return {std::nullopt, fmt::format("A has {} runs and B {}; runs are compared in pairs", a.size(), b.size())};
  if (a.empty()) return {std::nullopt, "no pairs of runs to compare"};
  PairedResult r;
  std::vector<double> logs, log_a, log_b;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int run = first_run + static_cast<int>(i);
    for (auto [side, v] : {std::pair{"A", a[i]}, std::pair{"B", b[i]}}) {
      if (!std::isfinite(v) || v <= 0) return {std::nullopt, fmt::format("{} run {}'s value {} is not a finite number above 0", side, run, v)};
    }
    r.pairs.push_back({run, a[i], b[i], std::log(b[i] / a[i])});
    logs.push_back(r.pairs.back().log_ratio);
    log_a.push_back(std::log(a[i]));
    log_b.push_back(std::log(b[i]));
  }
  const int n = static_cast<int>(logs.size());
  const double mean = mean_of(logs);
  r.b_vs_a_percent = percent_of_log(mean);
  flag_outliers(log_a, "A", kOutlierLevelPerSide, first_run, r.outliers);
  flag_outliers(log_b, "B", kOutlierLevelPerSide, first_run, r.outliers);
  flag_outliers(logs, "pair", kOutlierLevelPairs, first_run, r.outliers);
  if (n < 2) {
    r.reason = "one pair has no spread to judge by";
    r.verdict = Verdict::withheld;
    return {r, {}};
  }
  const auto [lowest, highest] = std::minmax_element(logs.begin(), logs.end());
  const bool agree = *highest - *lowest <= kAgreeingLogRatios;
  if (n < kMinPairsForVerdict) {
    r.reason = fmt::format("{} pair{} (a verdict needs {})", n, n == 1 ? "" : "s", kMinPairsForVerdict);
  } else if (agree) {
    r.reason = "every pair gave the same ratio, so there is no spread to build an interval on";
  }
  if (agree) {
    // Rounding alone separates them: no interval, at any ratio (exactly equal or not).
    r.verdict = Verdict::withheld;
    return {r, {}};
  }
  double squares = 0;
  for (double x : logs) squares += (x - mean) * (x - mean);
  r.sd_log = std::sqrt(squares / (n - 1));
  const double t975 = n < kMostPairs ? t_table().upper975[static_cast<std::size_t>(n - 2)] : student_t_quantile(0.975, n - 1);
  const double half = t975 * r.sd_log / std::sqrt(static_cast<double>(n));
  r.ci_low = percent_of_log(mean - half);
  r.ci_high = percent_of_log(mean + half);
  if (!r.reason.empty()) {
    r.verdict = Verdict::withheld;
    return {r, {}};
  }
  if (n < kMostPairs) r.smallest_detectable_percent = percent_of_log(detectable_log(r.sd_log, n));
  if (mean - half > 0 || mean + half < 0) {
    r.verdict = (mean > 0) == (better == Better::higher) ? Verdict::b_better : Verdict::a_better;
  } else {
    r.pairs_needed = pairs_for(r.sd_log, kNeededForEffectPercent);
  }
  return {r, {}};
}

AutoRuns::AutoRuns(double target_percent, int max_pairs, int warmup_pairs)
    : target_(target_percent), max_pairs_(max_pairs), warmup_pairs_(warmup_pairs) {}

bool AutoRuns::checks_at(int pairs) const {
  const int measured = pairs - warmup_pairs_;
  return !pilot_ && pairs % 2 == 0 && measured >= kAutoFirstCheck && pairs + measured <= max_pairs_;
}

bool AutoRuns::done(int pairs, std::optional<double> half_width) {
  if (pairs >= max_pairs_) return true;
  if (pilot_) return pairs >= *pilot_ + (*pilot_ - warmup_pairs_);
  if (checks_at(pairs) && half_width && *half_width <= target_) pilot_ = pairs;
  return false;
}

std::string describe(const PairedResult& r, Better better) {
  if (!r.ci_low || !r.ci_high) return fmt::format("no verdict: {} (B {:+.1f}% against A)", r.reason, r.b_vs_a_percent);
  const Comparison c{r.b_vs_a_percent, *r.ci_low, *r.ci_high, r.verdict};
  if (r.reason.empty()) return describe(c, better);
  return fmt::format("no verdict: {} (B {:+.1f}% against A, 95% CI {:.1f}% to {:.1f}%)", r.reason, r.b_vs_a_percent, *r.ci_low, *r.ci_high);
}

}  // namespace zcuda::bench
