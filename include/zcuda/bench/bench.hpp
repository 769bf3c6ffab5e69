#pragma once
// `zcuda bench`: one program run under two variants (runtime + environment), in balanced
// blocks A B B A, B A A B, ..., each run launched as `zcuda run` launches it, its output checked and measured,
// and the two compared (docs/bench.md).
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/home/home.hpp>
#include <zcuda/bench/metric.hpp>
#include <zcuda/bench/record.hpp>
#include <zcuda/bench/stats.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/stage/plan.hpp>

namespace zcuda::bench {

// --b-program: a variant's own program (an interpreter of another venv, another build), launched
// with its own arguments and its own profile's settings and placement.
struct OwnProgram {
  launch::Options launch;  // program, arguments and settings, as Options::launch is for the others
  std::optional<stage::PlanOptions> placement;
  std::optional<std::string> profile;
  bool no_stage = false;
  std::function<Status(const family::Identity&)> check_runtime;  // as Options::check_runtime, for this program's profile
};

struct VariantSpec {
  std::string label;                       // default "A" / "B"
  std::optional<std::string> runtime;      // version, folder or "native"; none: what run uses
  std::map<std::string, std::string> env;  // --a-env / --b-env
  std::optional<OwnProgram> own;           // none: Options::launch's program
};

struct Options {
  // Program, arguments and the settings run shares (HIP root, gfx, device, ZLUDA_CC, --direct);
  // the runtime and overrides are set per variant.
  launch::Options launch;
  bool no_stage = false;
  std::optional<std::uint64_t> knowledge;  // the knowledge bundle in use, for the record
  // A profile's placement (a folder such as torch/lib and its name map) in place of staging the
  // program's folder: each ZLUDA variant's runtime is placed there before its runs, and the
  // folder is restored before a native run. runtime_dir is filled per variant.
  std::optional<stage::PlanOptions> placement;
  // The name of that profile, for the record.
  std::optional<std::string> profile;
  // The profile's own check of a variant's runtime (its ZLUDA family, apps::check_runtime_family):
  // a variant whose runtime it refuses is not run.
  std::function<Status(const family::Identity&)> check_runtime;
  std::array<VariantSpec, 2> variants;
  int runs = 6;  // per variant: pairs
  // The seed that picks the first block (A B B A or B A A B); none: a fresh one (in the record).
  std::optional<std::uint64_t> order_seed;
  // --runs auto (AutoRuns): a pilot adds pairs (from 6, two at a time) until its interval's
  // half-width is at most this many percent, then as many fresh pairs give the figure; at most
  // max_runs pairs in all.
  std::optional<double> target_percent;
  int max_runs = 30;
  std::optional<Metric> metric;  // none: a run's wall time is its value
  int warmup = 0;                // values dropped at the start of every run (wall time: runs, in whole blocks)
  Better better = Better::lower;
  int expect_exit = 0;
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<std::string> check;  // run through the platform shell after each run
  BootstrapSettings bootstrap;
  bool show_output = false;                   // pass the program's output through as it runs
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C
};

// What the command shows while it runs; the core says what happens, the CLI decides how.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void notice(const std::string& text) = 0;
  virtual void run_starting(const VariantRecord& variant, int run, int step, int steps) = 0;
  virtual void run_finished(const VariantRecord& variant, const RunResult& run, int step, int steps) = 0;
};

// Runs the whole bench and returns its record (not yet written). Errors only when nothing could
// be run at all (program or runtime not found, staging refused); a failing run is a result.
Result<BenchRecord> run_bench(const Options& options, const home::Home& home, const detect::Profile& detected, const platform::Environment& base,
                              Observer& observer);

// What a maintainer needs to know of the machine, from detection.
MachineInfo machine_info(const detect::Profile& detected);

}  // namespace zcuda::bench
