#include <zcuda/bench/analysis.hpp>

#include <fmt/format.h>

namespace zcuda::bench {

AnalysisSettings settings_of(const BenchRecord& record) {
  const auto& c = record.comparison;
  return {c.measure, c.measure != "wall-seconds", c.warmup, c.better, {c.bootstrap_seed, c.bootstrap_resamples > 0 ? c.bootstrap_resamples : 10000}};
}

Runs kept_by_run(const VariantRecord& v, const AnalysisSettings& settings) {
  Runs out;
  for (const auto& r : v.runs) {
    if (!r.ok()) continue;
    if (settings.per_run_values) {
      out.emplace_back(r.values.begin() + std::min<std::ptrdiff_t>(settings.warmup, std::ssize(r.values)), r.values.end());
    } else if (r.number > settings.warmup) {
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
  const Runs a = kept_by_run(record.variants[0], settings);
  const Runs b = kept_by_run(record.variants[1], settings);
  if (auto unpaired = compare(a, b, settings.better, settings.bootstrap)) {
    c.unpaired = UnpairedRecord{unpaired->b_vs_a_percent, {unpaired->ci_low, unpaired->ci_high}, unpaired->verdict};
  }
  auto paired = analyse_pairs(run_summaries(a), run_summaries(b), settings.better);
  if (!paired.result) {
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
