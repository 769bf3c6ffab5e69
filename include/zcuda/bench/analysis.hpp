#pragma once
// From a bench record's runs to its comparison: the paired analysis (paired.hpp) of the run
// summaries, with the unpaired bootstrap kept alongside. The same function serves a bench that
// just ran and `zcuda bench --from-record`, so any record's figure can be recomputed from the
// record alone.
#include <vector>

#include <zcuda/bench/record.hpp>
#include <zcuda/bench/stats.hpp>

namespace zcuda::bench {

struct AnalysisSettings {
  std::string measure;          // "wall-seconds" or the --metric pattern
  bool per_run_values = false;  // with --metric: warm-up is a run's first values, not first runs
  int warmup = 0;
  Better better = Better::higher;
  BootstrapSettings bootstrap;
};

// What the record says it was analysed with.
AnalysisSettings settings_of(const BenchRecord& record);

// A variant's kept values, run by run (failed runs left out): the warm-up dropped from every run
// (with wall time, the variant's first `warmup` runs).
Runs kept_by_run(const VariantRecord& variant, const AnalysisSettings& settings);

// The comparison of a record's variants (its `variants`, `complete` and `runs_per_variant`).
ComparisonRecord analyse(const BenchRecord& record, const AnalysisSettings& settings);

}  // namespace zcuda::bench
