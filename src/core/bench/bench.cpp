#include <zcuda/bench/bench.hpp>

#include <zcuda/bench/analysis.hpp>

#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/base/sha256.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/launch/launcher.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/stage/for_launch.hpp>

namespace zcuda::bench {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kTailBytes = 2000;

std::string utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())); }

// The end of a failed run's output, cut at a line start where one is near.
std::string tail_of(const platform::ProcessResult& result) {
  const std::string& text = result.err.empty() ? result.out : result.err;
  if (text.size() <= kTailBytes) return text;
  std::string tail = text.substr(text.size() - kTailBytes);
  if (auto newline = tail.find('\n'); newline != std::string::npos && newline < kTailBytes / 4) tail.erase(0, newline + 1);
  return tail;
}

// One variant, ready to launch: its plan, and what the record says of its runtime.
struct PreparedVariant {
  VariantRecord record;
  std::optional<launch::RuntimeLocation> runtime;
  launch::LaunchPlan plan;
  // Where its runtime goes: a profile's folder, or the program's own (none); --no-stage: nowhere.
  std::optional<stage::PlanOptions> placement;
  bool no_stage = false;
  bool staging_noted = false;
};

Result<PreparedVariant> prepare_variant(const Options& options, std::size_t index, const home::Home& home, const platform::Environment& base,
                                        Observer& observer) {
  const VariantSpec& spec = options.variants[index];
  PreparedVariant out;
  out.record.name = index == 0 ? "A" : "B";
  out.record.label = spec.label.empty() ? out.record.name : spec.label;
  out.record.env = spec.env;
  auto runtime = launch::locate_runtime_spec(spec.runtime, home);
  if (!runtime) return std::unexpected(std::move(runtime.error()).with_note(fmt::format("variant {} ({})", out.record.name, out.record.label)));
  out.runtime = *runtime;

  // --b-program: the variant's own program, arguments and profile settings.
  launch::Options launch = spec.own ? spec.own->launch : options.launch;
  out.placement = spec.own ? spec.own->placement : options.placement;
  out.no_stage = spec.own ? spec.own->no_stage : options.no_stage;
  launch.overrides.assign(spec.env.begin(), spec.env.end());
  RuntimeInfo& info = out.record.runtime;
  info.spec = spec.runtime.value_or("default");
  if (out.runtime) {
    launch.runtime = *out.runtime;
    info.dir = path_to_utf8(out.runtime->dir);
    info.version = out.runtime->version;
    if (auto libraries = stage::runtime_libraries(out.runtime->dir, launch.os)) {
      for (auto& l : *libraries) info.libraries.push_back({std::move(l.name), std::move(l.sha256)});
    } else {
      observer.notice(fmt::format("variant {}: the runtime's libraries could not be listed: {}", out.record.name, libraries.error().message));
    }
    // Through zluda.exe the arguments are encoded for how this runtime's launcher passes them.
    if (auto learned = launch::learn_launcher_join(launch, home.state); !learned) {
      return std::unexpected(std::move(learned.error()).with_note(fmt::format("variant {} ({})", out.record.name, out.record.label)));
    }
  }
  auto plan = out.runtime ? launch::prepare_launch(launch, base) : launch::prepare_native_launch(launch, base);
  if (!plan) return std::unexpected(plan.error());
  if (out.runtime) {
    if (auto unmixed = launch::check_families(*plan, launch.os); !unmixed) {
      return std::unexpected(std::move(unmixed.error()).with_note(fmt::format("variant {} ({})", out.record.name, out.record.label)));
    }
    const auto& check_runtime = spec.own ? spec.own->check_runtime : options.check_runtime;
    if (check_runtime) {
      if (auto matched = check_runtime(plan->runtime_family); !matched) {
        return std::unexpected(std::move(matched.error()).with_note(fmt::format("variant {} ({})", out.record.name, out.record.label)));
      }
    }
  }
  out.plan = std::move(*plan);
  info.through_launcher = out.plan.through_launcher;
  ProgramInfo& program = out.record.program.emplace();
  program.path = path_to_utf8(out.plan.target);
  program.args = launch.args;
  program.profile = spec.own ? spec.own->profile : options.profile;
  if (auto digest = sha256_file(out.plan.target)) program.sha256 = *digest;
  return out;
}

// A profile's folder (torch/lib) with this variant's runtime placed in it, or restored for a
// native run, as `zcuda run --profile` leaves it.
Result<std::vector<std::string>> place_for(const PreparedVariant& variant, const stage::PlanOptions& placement) {
  std::vector<std::string> notices;
  if (!variant.runtime) {
    auto unstaged = stage::unstage_for_native_launch(placement.app);
    if (!unstaged) return std::unexpected(unstaged.error());
    if (unstaged->notice) notices.push_back(*unstaged->notice);
    return notices;
  }
  stage::PlanOptions options = placement;
  options.runtime_dir = variant.plan.runtime_dir.empty() ? variant.runtime->dir : variant.plan.runtime_dir;
  auto placed = stage::stage(options);
  if (!placed) return std::unexpected(std::move(placed.error()).with_note(fmt::format("placing into {}", placement.app)));
  if (placed->placed > 0) notices.push_back(fmt::format("placed {} file(s) into {} (journaled)", placed->placed, placed->plan.root));
  return notices;
}

// Puts the program's folder in the state this variant's launch needs, as `zcuda run` would.
Status stage_for(PreparedVariant& variant, const Options& options, const detect::Profile& detected, Observer& observer) {
  std::vector<std::string> notices;
  if (variant.placement && !variant.no_stage) {
    auto placed = place_for(variant, *variant.placement);
    if (!placed) return std::unexpected(placed.error());
    notices = std::move(*placed);
  } else if (variant.runtime && !variant.no_stage) {
    auto staged = stage::stage_for_launch(variant.plan.target, variant.plan.runtime_dir.empty() ? variant.runtime->dir : variant.plan.runtime_dir,
                                          options.launch.os, detected);
    if (!staged) return std::unexpected(staged.error());
    notices = std::move(staged->notices);
    for (auto& w : staged->warnings) notices.push_back("warning: " + w);
  } else if (!variant.runtime) {
    auto unstaged = stage::unstage_for_native_launch(variant.plan.target);
    if (!unstaged) return std::unexpected(unstaged.error());
    if (unstaged->notice) notices.push_back(*unstaged->notice);
  }
  // Alternating runtimes restages every run; say it the first time per variant.
  if (!variant.staging_noted && !notices.empty()) {
    for (const auto& n : notices) observer.notice(fmt::format("variant {}: {}", variant.record.name, n));
    variant.staging_noted = true;
  }
  return {};
}

platform::Environment with_bench_variables(platform::Environment env, const std::string& variant, int run) {
  env["ZCUDA_BENCH_VARIANT"] = variant;
  env["ZCUDA_BENCH_RUN"] = std::to_string(run);
  return env;
}

std::string why_failed(const platform::ProcessResult& ran, int expect_exit) {
  if (ran.cancelled || ran.timed_out || ran.signal || ran.exception_status) return platform::describe_exit(ran);
  if (ran.exit_code != expect_exit) return fmt::format("exit code {}, expected {}", ran.exit_code, expect_exit);
  return {};
}

// The run's values: the metric's matches in its standard output (or, when that has none, its
// standard error), or its wall time.
void measure(RunResult& run, const platform::ProcessResult& ran, const Options& options) {
  if (!options.metric) {
    run.values = {ran.seconds};
    return;
  }
  auto found = options.metric->extract(ran.out);
  if (found.values.empty() && found.rejected.empty()) found = options.metric->extract(ran.err);
  run.values = std::move(found.values);
  if (!found.rejected.empty()) {
    std::string shown;
    for (std::size_t i = 0; i < std::min<std::size_t>(found.rejected.size(), 3); ++i) {
      shown += fmt::format("{}'{}'", i == 0 ? "" : ", ", found.rejected[i].substr(0, 40));
    }
    run.failure =
        fmt::format("{} match{} of --metric {} not a finite number above 0 ({}{})", found.rejected.size(), found.rejected.size() == 1 ? "" : "es",
                    found.rejected.size() == 1 ? "is" : "are", shown, found.rejected.size() > 3 ? ", ..." : "");
  } else if (run.values.empty()) {
    run.failure = fmt::format("no output matched --metric '{}'", options.metric->pattern());
  } else if (static_cast<int>(run.values.size()) <= options.warmup) {
    run.failure =
        fmt::format("only {} value{}, all dropped as warm-up (--warmup {})", run.values.size(), run.values.size() == 1 ? "" : "s", options.warmup);
  }
}

void run_check(RunResult& run, const Options& options, const platform::Environment& env) {
  platform::ProcessSpec spec = platform::shell_command(*options.check);
  spec.environment = env;
  spec.streams = options.show_output ? platform::StreamMode::tee : platform::StreamMode::capture;
  spec.timeout = options.timeout;
  spec.cancel = options.cancel;
  auto ran = platform::run_process(spec);
  if (!ran) {
    run.check = CheckResult{-1, false, 0};
    run.failure = fmt::format("the check could not be started: {}", ran.error().message);
    return;
  }
  run.check = CheckResult{ran->exit_code, ran->exit_code == 0 && !ran->timed_out && !ran->cancelled, ran->seconds};
  run.cancelled = ran->cancelled;
  if (!run.check->ok) {
    run.failure = fmt::format("the check failed ({})", platform::describe_exit(*ran));
    run.output_tail = tail_of(*ran);
  }
}

RunResult run_once(PreparedVariant& variant, int number, const Options& options) {
  RunResult run;
  run.number = number;
  platform::ProcessSpec spec;
  spec.program = variant.plan.program;
  spec.args = variant.plan.args;
  spec.environment = with_bench_variables(variant.plan.environment, variant.record.name, number);
  spec.streams = options.show_output ? platform::StreamMode::tee : platform::StreamMode::capture;
  spec.timeout = options.timeout;
  spec.cancel = options.cancel;
  auto ran = platform::run_process(spec);
  if (!ran) {
    run.exit_code = -1;
    run.failure = fmt::format("could not be started: {}", ran.error().message);
    return run;
  }
  run.exit_code = ran->exit_code;
  run.signal = ran->signal;
  run.timed_out = ran->timed_out;
  run.cancelled = ran->cancelled;
  run.seconds = ran->seconds;
  run.failure = why_failed(*ran, options.expect_exit);
  if (run.ok()) measure(run, *ran, options);
  if (!run.ok()) {
    run.output_tail = tail_of(*ran);
    return run;
  }
  // The check sees the run's environment: a program's own verification mode (`rl-train --verify`)
  // then runs on the same runtime and settings as the run it vouches for.
  if (options.check) run_check(run, options, *spec.environment);
  return run;
}

AnalysisSettings analysis_settings(const Options& options) {
  return {options.metric ? options.metric->pattern() : "wall-seconds",
          options.metric.has_value(),
          options.warmup,
          options.better,
          options.bootstrap,
          std::nullopt};
}

void summarize_variant(VariantRecord& v, int runs, const AnalysisSettings& settings) {
  v.values.clear();
  for (const auto& run : kept_by_run(v, settings)) v.values.insert(v.values.end(), run.begin(), run.end());
  v.ok = static_cast<int>(v.runs.size()) == runs && std::ranges::all_of(v.runs, [](const RunResult& r) { return r.ok(); }) && !v.values.empty();
  v.summary = v.ok ? summarize(v.values) : std::nullopt;
}

bool any_failed(const std::vector<PreparedVariant>& variants) {
  return std::ranges::any_of(variants, [](const PreparedVariant& v) { return !std::ranges::all_of(v.record.runs, &RunResult::ok); });
}

// --runs auto: the half-width (percent) of the interval of the pilot's measured pairs so far.
std::optional<double> pilot_half_width(std::vector<PreparedVariant>& variants, int pairs, const BenchRecord& record, const Options& options) {
  BenchRecord so_far;
  so_far.runs_per_variant = pairs;
  so_far.order = record.order;
  so_far.order_seed = record.order_seed;
  for (auto& v : variants) {
    summarize_variant(v.record, pairs, analysis_settings(options));
    so_far.variants.push_back(v.record);
  }
  const ComparisonRecord c = analyse(so_far, analysis_settings(options));
  if (!c.ci95_percent) return std::nullopt;
  return (c.ci95_percent->second - c.ci95_percent->first) / 2;
}

// A seed for the first block when none was given: fresh for every bench (kept in the record).
// Below 2^53, so any JSON reader keeps it exactly.
std::uint64_t fresh_order_seed() {
  std::random_device device;
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ((std::uint64_t{device()} << 32) ^ std::uint64_t{device()} ^ now) & ((std::uint64_t{1} << 53) - 1);
}

}  // namespace

MachineInfo machine_info(const detect::Profile& detected) {
  MachineInfo m;
  m.os = detected.os;
  for (const auto& g : detected.gpus) {
    std::string vendor = g.vendor_id == 0x1002   ? "amd"
                         : g.vendor_id == 0x10de ? "nvidia"
                         : g.vendor_id == 0x8086 ? "intel"
                                                 : fmt::format("{:04x}", g.vendor_id);
    m.gpus.push_back({g.name, std::move(vendor), g.gfx, g.driver});
  }
  m.amd_driver = detected.driver.adrenalin_version.empty() ? detected.driver.version : detected.driver.adrenalin_version;
  if (const auto* hip = detected.selected_hip()) m.hip_sdk = fmt::format("{} at {}", hip->version, hip->root);
  m.nvidia_gpu = detected.cuda.nvidia_gpu;
  return m;
}

Result<BenchRecord> run_bench(const Options& options, const home::Home& home, const detect::Profile& detected, const platform::Environment& base,
                              Observer& observer) {
  BenchRecord record;
  record.started = utc_now();
  record.zcuda_version = std::string(version());
  record.knowledge = options.knowledge;
  const int planned = options.target_percent ? options.max_runs : options.runs;
  const AnalysisSettings settings = analysis_settings(options);
  if (warmup_runs(settings) >= planned) {
    return fail(ErrorKind::usage,
                fmt::format("--warmup {} drops the first {} runs of each variant (wall time: whole blocks A B B A), and {} leave{} none to compare",
                            options.warmup, warmup_runs(settings), planned, planned == 1 ? "s" : ""),
                "Run more pairs (--runs), or fewer warm-up runs.");
  }
  record.order_seed = options.order_seed ? *options.order_seed : fresh_order_seed();
  const std::vector<int> order = balanced_order(planned, *record.order_seed);
  // The pairs compared: after a wall-time warm-up's whole blocks, which are even.
  const int compared = planned - warmup_runs(settings);
  if (!options.target_percent && compared % 2 == 1 && compared >= kMinPairsForVerdict) {
    observer.notice(
        fmt::format("{} pairs compared: an odd count leaves one pair's step of drift uncancelled (an even count cancels it); the seeded first "
                    "block ({}) decides which side it falls on",
                    compared, order_text(std::span(order).first(4))));
  }
  std::optional<AutoRuns> auto_runs;
  if (options.target_percent) auto_runs.emplace(*options.target_percent, options.max_runs, warmup_runs(settings));
  record.target_percent = options.target_percent;
  record.expect_exit = options.expect_exit;
  if (options.timeout) record.timeout_seconds = std::chrono::duration<double>(*options.timeout).count();
  record.check = options.check;
  record.machine = machine_info(detected);

  std::vector<PreparedVariant> variants;
  for (std::size_t i = 0; i < 2; ++i) {
    auto prepared = prepare_variant(options, i, home, base, observer);
    if (!prepared) return std::unexpected(prepared.error());
    variants.push_back(std::move(*prepared));
  }
  // The application: what A ran (with --b-program, B's own is in its variant).
  const ProgramInfo& a = *variants[0].record.program;
  record.app.path = a.path;
  record.app.args = a.args;
  record.app.profile = a.profile;
  record.app.sha256 = a.sha256;

  // A B B A, B A A B, ...: a drift of the machine (heat, other load) cancels within each block.
  const int steps = static_cast<int>(order.size());
  for (int step = 0; step < steps; ++step) {
    if (options.cancel != nullptr && options.cancel->load()) {
      record.complete = false;
      break;
    }
    if (auto_runs && step % 2 == 0) {
      // A failed run ends it: no interval would come.
      if (any_failed(variants)) break;
      const int pairs = step / 2;
      const bool piloting = !auto_runs->pilot_pairs();
      const auto half_width = auto_runs->checks_at(pairs) ? pilot_half_width(variants, pairs, record, options) : std::nullopt;
      if (auto_runs->done(pairs, half_width)) break;
      if (piloting && auto_runs->pilot_pairs()) {
        const int measured = pairs - warmup_runs(settings);
        observer.notice(fmt::format("--runs auto: the pilot's {} pairs reached ±{:.1f}%; {} fresh pairs follow, and the figure comes from them alone",
                                    measured, *half_width, measured));
      }
    }
    PreparedVariant& variant = variants[static_cast<std::size_t>(order[static_cast<std::size_t>(step)])];
    const int number = static_cast<int>(variant.record.runs.size()) + 1;
    RunResult run;
    if (auto staged = stage_for(variant, options, detected, observer); !staged) {
      // Before the first run nothing was measured: the error itself, with its exit code. Later,
      // the runs done so far are kept and this one fails.
      if (step == 0) return std::unexpected(staged.error());
      run.number = number;
      run.exit_code = -1;
      run.failure = "the folder could not be staged: " + staged.error().message;
    } else {
      observer.run_starting(variant.record, number, step + 1, steps);
      const std::string started = utc_now();
      run = run_once(variant, number, options);
      run.started = started;
    }
    run.position = step + 1;
    const bool cancelled = run.cancelled;
    variant.record.runs.push_back(std::move(run));
    record.order += variant.record.name;
    observer.run_finished(variant.record, variant.record.runs.back(), step + 1, steps);
    if (cancelled) {
      record.complete = false;
      break;
    }
  }
  record.runs_per_variant = options.target_percent ? static_cast<int>(record.order.size() / 2) : options.runs;
  if (auto_runs) record.pilot_pairs = auto_runs->pilot_pairs();
  AnalysisSettings final_settings = settings;
  final_settings.pilot_pairs = record.pilot_pairs;
  for (auto& v : variants) {
    summarize_variant(v.record, record.runs_per_variant, final_settings);
    record.variants.push_back(std::move(v.record));
  }
  record.comparison = analyse(record, final_settings);
  record.finished = utc_now();
  return record;
}

}  // namespace zcuda::bench
