#pragma once
// From a bench record's runs to its comparison: the paired analysis (paired.hpp) of the run
// summaries, with the unpaired bootstrap kept alongside. The same function serves a bench that
// just ran and `zcuda bench --from-record`, so any record's figure can be recomputed from the
// record alone: its order (and each run's position in it) says which runs are pairs, its warm-up
// and --runs auto pilot which pairs are in the figure.
#include <optional>
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
  // --runs auto: the pilot's pairs (warm-up included), left out of the figure.
  std::optional<int> pilot_pairs;
};

// What the record says it was analysed with.
AnalysisSettings settings_of(const BenchRecord& record);

// Wall time: the runs of each variant dropped as warm-up, `warmup` rounded up to whole blocks
// (A B B A holds two runs of each), so the pairs that remain still cancel a drift. With --metric,
// 0: the warm-up is values within each run.
int warmup_runs(const AnalysisSettings& settings);
// The first run (of each variant, so the first pair) in the figure: after the warm-up blocks and
// after an auto pilot.
int first_measured_run(const AnalysisSettings& settings);

// A variant's kept values, run by run (failed runs left out): runs from first_measured_run on,
// with --metric the warm-up values dropped from every run.
Runs kept_by_run(const VariantRecord& variant, const AnalysisSettings& settings);

// The comparison of a record's variants (its `variants`, `complete`, `order` and `order_seed`).
ComparisonRecord analyse(const BenchRecord& record, const AnalysisSettings& settings);

}  // namespace zcuda::bench
