#pragma once
// The statistics of a bench: per-variant summaries and the comparison of B against A, with a
// seeded bootstrap interval so a record's figures can be recomputed from its values.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zcuda::bench {

enum class Better { higher, lower };
// withheld: the runs passed and were compared, but no directional verdict can be given (too few
// pairs, pairs that all agree, an order the paired method cannot use); the record's `withheld`
// says why. Records before schema 3 stored it as no_clear_difference with a `withheld` reason.
enum class Verdict { a_better, b_better, no_clear_difference, withheld, invalid };

std::string_view to_string(Better better);
std::string_view to_string(Verdict verdict);
std::optional<Better> parse_better(std::string_view text);
std::optional<Verdict> parse_verdict(std::string_view text);

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
};

// nullopt for no values.
std::optional<Summary> summarize(std::span<const double> values);

// Median; the mean of the middle two for an even count. `values` must not be empty.
double median(std::vector<double> values);

struct BootstrapSettings {
  std::uint64_t seed = 20261203;
  int resamples = 10000;
};

struct Comparison {
  double b_vs_a_percent = 0;  // (median B - median A) / |median A|, in percent
  double ci_low = 0;          // 95% percentile-bootstrap interval of that figure
  double ci_high = 0;
  Verdict verdict = Verdict::invalid;
};

// A variant's kept values, grouped by the run they came from. Values of one run share that
// run's circumstances (clocks, caches, other load), so they are not independent of each other:
// the run is the unit that is repeated.
using Runs = std::vector<std::vector<double>>;

// B against A, from the medians of all kept values. The interval is a two-stage (cluster)
// bootstrap: each resample draws runs with replacement, then values within each drawn run, so
// run-to-run variation widens the interval as it should; with one value per run it is the plain
// bootstrap over runs. nullopt when either side has no values or A's median is 0.
std::optional<Comparison> compare(const Runs& a, const Runs& b, Better better, const BootstrapSettings& settings = {});
// Every value its own run (independent values).
std::optional<Comparison> compare(std::span<const double> a, std::span<const double> b, Better better, const BootstrapSettings& settings = {});

// The one sentence a person reads first: "B is 3.0% slower than A (95% CI 1.9% to 4.1%)" or
// "no clear difference (95% CI -0.8% to 1.1%)".
std::string describe(const Comparison& comparison, Better better);

}  // namespace zcuda::bench
