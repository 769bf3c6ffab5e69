#include <zcuda/bench/stats.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include <zcuda/base/enum_words.hpp>

namespace zcuda::bench {

std::string_view to_string(Better better) { return better == Better::higher ? "higher" : "lower"; }

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::a_better:
      return "a-better";
    case Verdict::b_better:
      return "b-better";
    case Verdict::no_clear_difference:
      return "no-clear-difference";
    case Verdict::withheld:
      return "withheld";
    case Verdict::invalid:
      return "invalid";
  }
  return "invalid";
}

std::optional<Better> parse_better(std::string_view text) { return enum_from_word(text, {Better::higher, Better::lower}); }

std::optional<Verdict> parse_verdict(std::string_view text) {
  return enum_from_word(text, {Verdict::a_better, Verdict::b_better, Verdict::no_clear_difference, Verdict::withheld, Verdict::invalid});
}

double median(std::vector<double> values) {
  const std::size_t n = values.size();
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(values.begin(), mid);
  return lower + (upper - lower) / 2;
}

std::optional<Summary> summarize(std::span<const double> values) {
  if (values.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return Summary{median(std::vector<double>(values.begin(), values.end())), *lo, *hi};
}

namespace {

// A uniform index below n from the engine, the same on every platform and standard library
// (std::uniform_int_distribution is not specified bit for bit; mt19937_64 is).
std::size_t draw_index(std::mt19937_64& engine, std::size_t n) {
  const std::uint64_t range = n;
  const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % range;
  std::uint64_t x = engine();
  while (x >= limit) x = engine();
  return static_cast<std::size_t>(x % range);
}

// One two-stage resample: runs drawn with replacement, then each drawn run's values.
double resampled_median(const Runs& runs, std::mt19937_64& engine, std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& run = runs[draw_index(engine, runs.size())];
    for (std::size_t i = 0; i < run.size(); ++i) scratch.push_back(run[draw_index(engine, run.size())]);
  }
  return median(scratch);
}

std::vector<double> pooled(const Runs& runs) {
  std::vector<double> out;
  for (const auto& run : runs) out.insert(out.end(), run.begin(), run.end());
  return out;
}

// Runs with no values carry nothing into a resample; leaving them out keeps the draw honest.
Runs without_empty(const Runs& runs) {
  Runs out;
  for (const auto& run : runs) {
    if (!run.empty()) out.push_back(run);
  }
  return out;
}

double percent_change(double a, double b) { return (b - a) / std::fabs(a) * 100.0; }

// The q-quantile of sorted values, interpolated linearly between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
}

}  // namespace

std::optional<Comparison> compare(std::span<const double> a, std::span<const double> b, Better better, const BootstrapSettings& settings) {
  Runs runs_a, runs_b;
  for (double v : a) runs_a.push_back({v});
  for (double v : b) runs_b.push_back({v});
  return compare(runs_a, runs_b, better, settings);
}

std::optional<Comparison> compare(const Runs& given_a, const Runs& given_b, Better better, const BootstrapSettings& settings) {
  const Runs a = without_empty(given_a);
  const Runs b = without_empty(given_b);
  if (a.empty() || b.empty() || settings.resamples < 1) return std::nullopt;
  const double median_a = median(pooled(a));
  const double median_b = median(pooled(b));
  if (median_a == 0) return std::nullopt;

  std::mt19937_64 engine(settings.seed);
  std::vector<double> differences;
  differences.reserve(static_cast<std::size_t>(settings.resamples));
  std::vector<double> scratch;
  for (int i = 0; i < settings.resamples; ++i) {
    const double resampled_a = resampled_median(a, engine, scratch);
    const double resampled_b = resampled_median(b, engine, scratch);
    if (resampled_a == 0) continue;  // no percentage of zero; drawn again would bias nothing
    differences.push_back(percent_change(resampled_a, resampled_b));
  }
  if (differences.empty()) return std::nullopt;
  std::sort(differences.begin(), differences.end());

  Comparison out;
  out.b_vs_a_percent = percent_change(median_a, median_b);
  out.ci_low = quantile(differences, 0.025);
  out.ci_high = quantile(differences, 0.975);
  if (out.ci_low <= 0 && out.ci_high >= 0) {
    out.verdict = Verdict::no_clear_difference;
  } else {
    const bool b_higher = out.ci_low > 0;
    out.verdict = b_higher == (better == Better::higher) ? Verdict::b_better : Verdict::a_better;
  }
  return out;
}

std::string describe(const Comparison& c, Better better) {
  if (c.verdict == Verdict::invalid) return "no comparison: a variant has no valid figure";
  if (c.verdict == Verdict::no_clear_difference) {
    return fmt::format("no clear difference (95% CI {:.1f}% to {:.1f}%)", c.ci_low, c.ci_high);
  }
  // Stated as B's gain or loss, so the interval reads in the same direction as the figure.
  const double sign = better == Better::higher ? 1.0 : -1.0;
  const double gain = sign * c.b_vs_a_percent;
  const double low = std::min(sign * c.ci_low, sign * c.ci_high);
  const double high = std::max(sign * c.ci_low, sign * c.ci_high);
  if (gain >= 0) return fmt::format("B is {:.1f}% faster than A (95% CI {:.1f}% to {:.1f}%)", gain, low, high);
  return fmt::format("B is {:.1f}% slower than A (95% CI {:.1f}% to {:.1f}%)", -gain, -high, -low);
}

}  // namespace zcuda::bench
