#include <zcuda/bench/analysis.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace zcuda::bench {

AnalysisSettings settings_of(const BenchRecord& record) {
  const auto& c = record.comparison;
  return {c.measure,
          c.measure != "wall-seconds",
          c.warmup,
          c.better,
          {c.bootstrap_seed, c.bootstrap_resamples > 0 ? c.bootstrap_resamples : 10000},
          record.pilot_pairs};
}

int warmup_runs(const AnalysisSettings& settings) {
  if (settings.per_run_values || settings.warmup <= 0) return 0;
  return (settings.warmup + 1) / 2 * 2;
}

int first_measured_run(const AnalysisSettings& settings) { return std::max(warmup_runs(settings), settings.pilot_pairs.value_or(0)) + 1; }

Runs kept_by_run(const VariantRecord& v, const AnalysisSettings& settings) {
  Runs out;
  const int first = first_measured_run(settings);
  for (const auto& r : v.runs) {
    if (!r.ok() || r.number < first) continue;
    if (settings.per_run_values) {
      out.emplace_back(r.values.begin() + std::min<std::ptrdiff_t>(settings.warmup, std::ssize(r.values)), r.values.end());
    } else {
      out.push_back(r.values);
    }
  }
  return out;
}

namespace {

std::string first_failure(const std::vector<VariantRecord>& variants) {
  for (const auto& v : variants) {
    for (const auto& r : v.runs) {
      if (!r.ok()) return fmt::format("{} run {}: {}", v.name, r.number, r.failure);
    }
    if (v.runs.empty() || v.values.empty()) return fmt::format("{} has no values", v.name);
  }
  return "a variant has no values";
}

// A value no figure can be taken from (older zcuda kept values at or below 0 from a --metric).
std::string unusable_value(const std::vector<VariantRecord>& variants) {
  for (const auto& v : variants) {
    for (const auto& r : v.runs) {
      for (double x : r.values) {
        if (!std::isfinite(x) || x <= 0) return fmt::format("{} run {}: the value {} is not a finite number above 0", v.name, r.number, x);
      }
    }
  }
  return {};
}

// With --metric every run of a program prints the same number of values as a rule; a run with
// fewer (or more) had a line the pattern did not match, such as "overall_sps nan" against
// ([0-9.]+), or printed something else. Named, since nothing else would show it.
std::vector<std::string> value_count_warnings(const std::vector<VariantRecord>& variants) {
  std::map<std::size_t, int> counts;
  for (const auto& v : variants) {
    for (const auto& r : v.runs) counts[r.values.size()]++;
  }
  std::vector<std::string> out;
  if (counts.size() < 2) return out;
  const std::size_t usual = std::ranges::max_element(counts, {}, [](const auto& entry) { return entry.second; })->first;
  for (const auto& v : variants) {
    for (const auto& r : v.runs) {
      if (r.values.size() == usual) continue;
      out.push_back(
          fmt::format("{} run {} gave {} value{} where the other runs gave {}: a line the --metric pattern does not match (such as 'overall_sps nan' "
                      "against ([0-9.]+)) is left out without a trace; look at that run's output",
                      v.name, r.number, r.values.size(), r.values.size() == 1 ? "" : "s", usual));
    }
  }
  return out;
}

// Why the paired method cannot use the record's order, or empty: run k of A and run k of B must
// be neighbours (steps 2k-1 and 2k), and each run's recorded position must be its place in it.
std::string unusable_order(const BenchRecord& record) {
  const std::string& order = record.order;
  const auto& a = record.variants[0];
  const auto& b = record.variants[1];
  const auto as = std::ranges::count(order, 'A'), bs = std::ranges::count(order, 'B');
  if (as + bs != std::ssize(order) || as != std::ssize(a.runs) || bs != std::ssize(b.runs)) {
    return fmt::format("the order '{}' does not name the record's {} runs of A and {} of B", order, a.runs.size(), b.runs.size());
  }
  for (std::size_t step = 0; step + 1 < order.size(); step += 2) {
    if (order[step] == order[step + 1]) {
      return fmt::format(
          "the order {} does not run A's and B's runs side by side in pairs (places {} and {} are both {}), so the paired method cannot "
          "compare it; the unpaired figure is kept",
          order, step + 1, step + 2, order[step]);
    }
  }
  for (const auto& v : record.variants) {
    for (const auto& r : v.runs) {
      if (r.position == 0) continue;  // schema 1: the order alone
      int seen = 0;
      std::size_t at = 0;
      for (; at < order.size(); ++at) {
        if (order[at] == v.name[0] && ++seen == r.number) break;
      }
      if (at + 1 != static_cast<std::size_t>(r.position)) {
        return fmt::format("{} run {} is at position {} but the order {} puts it at {}: the record was edited", v.name, r.number, r.position, order,
                           at + 1);
      }
    }
  }
  return {};
}

// Warnings on an order the paired method can use but that does not cancel drift, or that its
// seed would not give.
std::vector<std::string> order_warnings(const BenchRecord& record, int first_run, int pairs) {
  std::vector<std::string> out;
  const std::string& order = record.order;
  int a_first = 0, b_first = 0;
  for (int k = first_run; k < first_run + pairs; ++k) {
    const auto step = static_cast<std::size_t>(2 * (k - 1));
    if (step < order.size()) (order[step] == 'A' ? a_first : b_first)++;
  }
  if (std::abs(a_first - b_first) > 1) {
    out.push_back(
        fmt::format("the order {} runs A first in {} of the {} pairs compared and B first in {}: a drift of the machine (heat, other load) is not "
                    "cancelled and can show as a difference (balanced blocks A B B A, B A A B cancel it; docs/bench.md)",
                    order, a_first, a_first + b_first, b_first));
  }
  if (record.order_seed) {
    const std::string expected = order_text(balanced_order(static_cast<int>((order.size() + 1) / 2), *record.order_seed)).substr(0, order.size());
    if (expected != order) {
      out.push_back(
          fmt::format("the order {} is not the one its order_seed {} gives ({}): the record was edited", order, *record.order_seed, expected));
    }
  }
  return out;
}

std::vector<double> run_summaries(const Runs& runs) {
  std::vector<double> out;
  for (const auto& run : runs) out.push_back(run.empty() ? 0.0 : median(run));
  return out;
}

}  // namespace

ComparisonRecord analyse(const BenchRecord& record, const AnalysisSettings& settings) {
  ComparisonRecord c;
  c.measure = settings.measure;
  c.better = settings.better;
  c.warmup = settings.warmup;
  c.bootstrap_seed = settings.bootstrap.seed;
  c.bootstrap_resamples = settings.bootstrap.resamples;
  if (!record.complete) {
    c.summary = "incomplete: stopped by Ctrl-C before every run was done";
    return c;
  }
  if (record.variants.size() != 2 || !record.variants[0].ok || !record.variants[1].ok) {
    c.summary = "invalid: " + first_failure(record.variants);
    return c;
  }
  if (auto bad = unusable_value(record.variants); !bad.empty()) {
    c.summary = "invalid: " + bad;
    return c;
  }
  if (settings.per_run_values) c.warnings = value_count_warnings(record.variants);
  const Runs a = kept_by_run(record.variants[0], settings);
  const Runs b = kept_by_run(record.variants[1], settings);
  if (auto unpaired = compare(a, b, settings.better, settings.bootstrap)) {
    c.unpaired = UnpairedRecord{unpaired->b_vs_a_percent, {unpaired->ci_low, unpaired->ci_high}, unpaired->verdict};
  }
  if (auto why = unusable_order(record); !why.empty()) {
    c.verdict = Verdict::withheld;
    c.withheld = why;
    c.summary = "no verdict: " + why;
    return c;
  }
  const int first = first_measured_run(settings);
  for (auto& w : order_warnings(record, first, static_cast<int>(std::min(a.size(), b.size())))) c.warnings.push_back(std::move(w));
  auto paired = analyse_pairs(run_summaries(a), run_summaries(b), settings.better, first);
  if (!paired.result) {
    c.verdict = Verdict::invalid;
    c.summary = "invalid: " + paired.error;
    return c;
  }
  const PairedResult& p = *paired.result;
  c.pairs = p.pairs;
  c.b_vs_a_percent = p.b_vs_a_percent;
  if (p.ci_low && p.ci_high) c.ci95_percent = std::pair(*p.ci_low, *p.ci_high);
  if (p.pairs.size() > 1) c.sd_log_ratio = p.sd_log;
  c.smallest_detectable_percent = p.smallest_detectable_percent;
  c.pairs_needed = p.pairs_needed;
  c.outliers = p.outliers;
  c.verdict = p.verdict;
  c.withheld = p.reason;
  c.summary = describe(p, settings.better);
  return c;
}

}  // namespace zcuda::bench
