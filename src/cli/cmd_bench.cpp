// zcuda bench: APP under two variants alternated, its output checked, the two compared, and a
// record kept (docs/bench.md). Parses, calls bench::run_bench, renders.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include <zcuda/bench/analysis.hpp>
#include <zcuda/apps/runtime_match.hpp>
#include <zcuda/bench/bench.hpp>
#include <zcuda/base/whole_number.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/interrupt.hpp>
#include <zcuda/platform/terminal.hpp>
#include <zcuda/ui/table.hpp>

#include "app_launch.hpp"
#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"
#include "launch_flags.hpp"

namespace zcuda::cli {

namespace {

struct VariantFlags {
  std::optional<std::string> runtime;
  std::vector<std::string> env;
  std::optional<std::string> label;
};

// --b-program and --b-args: B's own program (another venv's interpreter, another build).
struct ProgramFlags {
  std::optional<std::string> program;
  std::vector<std::string> args;
  bool args_given = false;
};

struct BenchFlags {
  LaunchFlags launch;
  InlineGlobals globals;
  std::array<VariantFlags, 2> variants;
  ProgramFlags b;
  std::string runs = std::to_string(bench::Options{}.runs);
  std::optional<double> target;
  int max_runs = bench::Options{}.max_runs;
  std::optional<std::string> from_record;
  std::optional<std::string> metric;
  std::optional<int> warmup;
  std::optional<std::string> better;
  int expect_exit = 0;
  std::optional<double> timeout;
  std::optional<std::string> check;
  std::uint64_t seed = bench::BootstrapSettings{}.seed;
  std::optional<std::uint64_t> order_seed;
  bool show_output = false;
  std::vector<std::string> unused_positional;
};

// Progress on a terminal only: a line per run, so a long bench shows it is alive.
class TerminalObserver : public bench::Observer {
 public:
  TerminalObserver(bool quiet, bool progress) : quiet_(quiet), progress_(progress) {}
  void notice(const std::string& text) override {
    if (!quiet_) std::fputs(("zcuda: " + text + "\n").c_str(), stderr);
  }
  void run_starting(const bench::VariantRecord& v, int run, int step, int steps) override {
    if (progress_) std::fputs(fmt::format("zcuda: [{}/{}] {} ({}) run {}...\n", step, steps, v.name, v.label, run).c_str(), stderr);
  }
  void run_finished(const bench::VariantRecord& v, const bench::RunResult& r, int step, int steps) override {
    if (!progress_) return;
    std::string what =
        r.ok() ? (r.values.empty() ? "done"
                                   : fmt::format("last value {:.6g} ({} value{})", r.values.back(), r.values.size(), r.values.size() == 1 ? "" : "s"))
               : "failed: " + r.failure;
    std::fputs(fmt::format("zcuda: [{}/{}] {} run {}: {}, {:.2f} s\n", step, steps, v.name, r.number, what, r.seconds).c_str(), stderr);
  }

 private:
  bool quiet_;
  bool progress_;
};

std::string format_value(const std::optional<bench::Summary>& s, double bench::Summary::*field) {
  return s ? fmt::format("{:.6g}", (*s).*field) : "-";
}

std::string percent_text(double value) { return fmt::format("{:+.1f}%", value); }

// Which runs were dropped as warm-up, in words.
std::string warmup_text(const bench::ComparisonRecord& c) {
  if (c.warmup <= 0) return {};
  if (c.measure != "wall-seconds") return fmt::format("; first {} value{} of every run dropped as warm-up", c.warmup, c.warmup == 1 ? "" : "s");
  const int runs = bench::warmup_runs({c.measure, false, c.warmup, c.better, {}, std::nullopt});
  return fmt::format("; runs 1 to {} of each variant dropped as warm-up: --warmup {} in whole blocks of A B B A, so drift still cancels", runs,
                     c.warmup);
}

// What the comparison could see, its pairs' outliers and the unpaired figure: a line each.
std::string render_analysis(const bench::BenchRecord& record, const ui::Style& style) {
  const auto& c = record.comparison;
  std::string which = fmt::format("{} pair{}", c.pairs.size(), c.pairs.size() == 1 ? "" : "s");
  if (!c.pairs.empty() && c.pairs.front().number > 1) {
    which = fmt::format("{} pairs (runs {} to {} of each variant)", c.pairs.size(), c.pairs.front().number, c.pairs.back().number);
  }
  std::string text = fmt::format("  Method: {}, {} in the order {}\n", c.method, which, record.order);
  if (!c.pairs.empty() && std::ssize(c.pairs) < bench::kMinPairsForVerdict) {
    text += fmt::format(
        "  Smallest detectable difference: none at {} pair{}: no verdict is given below {}, so nothing can be found (--runs {} or more)\n",
        c.pairs.size(), c.pairs.size() == 1 ? "" : "s", bench::kMinPairsForVerdict, bench::kMinPairsForVerdict);
  } else if (c.smallest_detectable_percent) {
    text += fmt::format("  Smallest detectable difference: about {:.1f}% (found 80% of the time at this spread of the pairs)\n",
                        *c.smallest_detectable_percent);
  }
  if (c.verdict == bench::Verdict::no_clear_difference && c.pairs_needed) {
    text += fmt::format("  Pairs needed to see {:.0f}%: about {} (--runs {}, or --runs auto --target PCT)\n", bench::kNeededForEffectPercent,
                        *c.pairs_needed, *c.pairs_needed);
  }
  for (const auto& o : c.outliers) {
    const std::string what = o.what == "pair" ? fmt::format("pair {}", o.run) : fmt::format("{} run {}", o.what, o.run);
    text += style.yellow(fmt::format("  Outlier: {} is {} from the others' typical {} (kept in the figure)\n", what,
                                     percent_text(o.percent_from_typical), o.what == "pair" ? "ratio" : "run"));
  }
  if (c.unpaired) {
    text += style.dim(fmt::format("  Unpaired ({}): B {} against A, 95% CI {:.1f}% to {:.1f}%\n", bench::kUnpairedMethod,
                                  percent_text(c.unpaired->b_vs_a_percent), c.unpaired->ci95_percent.first, c.unpaired->ci95_percent.second));
  }
  if (record.target_percent) {
    const auto& ci = c.ci95_percent;
    const std::string reached = ci ? fmt::format("±{:.1f}%", (ci->second - ci->first) / 2) : "no interval";
    if (record.pilot_pairs) {
      text += fmt::format(
          "  Target ±{:.1f}%: met by a pilot of {} pairs; the figure is from the {} fresh pairs after it ({}), so stopping on the "
          "pilot's spread does not narrow it\n",
          *record.target_percent, *record.pilot_pairs, c.pairs.size(), reached);
    } else {
      text += fmt::format("  Target ±{:.1f}%: not met by a pilot within --max-runs; the figure is from every pair ({})\n", *record.target_percent,
                          reached);
    }
  }
  return text;
}

// With --b-program, which program each side ran and its digest.
std::string render_programs(const bench::BenchRecord& record) {
  if (record.variants.size() != 2 || !record.variants[0].program || !record.variants[1].program) return {};
  const auto& a = *record.variants[0].program;
  const auto& b = *record.variants[1].program;
  if (a.path == b.path && a.args == b.args) return {};
  std::string text;
  for (const auto& v : record.variants) {
    const auto& p = *v.program;
    std::string args;
    for (const auto& arg : p.args) args += " " + arg;
    text += fmt::format("  Program {}: {}{} (sha256 {}{})\n", v.name, p.path, args, p.sha256.empty() ? "unknown" : p.sha256.substr(0, 16),
                        p.profile ? ", profile " + *p.profile : "");
  }
  return text;
}

std::string render(const bench::BenchRecord& record, const ui::Style& style) {
  const auto& c = record.comparison;
  std::string headline = c.verdict == bench::Verdict::invalid ? style.red(c.summary) : style.bold(c.summary);
  std::string text = headline + "\n";
  for (const auto& w : c.warnings) text += style.yellow("warning: " + w) + "\n";
  text += "\n";
  ui::Table table({"", "Label", "Runtime", "Runs ok", "Values", "Median", "Min", "Max"});
  for (const auto& v : record.variants) {
    const auto ok_runs = std::ranges::count_if(v.runs, [](const bench::RunResult& r) { return r.ok(); });
    std::string runtime = v.runtime.spec == "default" && v.runtime.version ? *v.runtime.version : v.runtime.spec;
    table.add_row({v.name, v.label, runtime, fmt::format("{}/{}", ok_runs, record.runs_per_variant), std::to_string(v.values.size()),
                   format_value(v.summary, &bench::Summary::median), format_value(v.summary, &bench::Summary::min),
                   format_value(v.summary, &bench::Summary::max)});
  }
  text += table.render();
  text += fmt::format("\n  Measure: {} ({} is better{})\n", c.measure, bench::to_string(c.better), warmup_text(c));
  if (record.app.profile) {
    text += fmt::format("  Profile: {} (its variables, launch mode and placement in every ZLUDA variant's runs)\n", *record.app.profile);
  }
  text += render_programs(record);
  if (c.verdict != bench::Verdict::invalid) text += render_analysis(record, style);
  if (record.check) {
    text += fmt::format("  Output check: {}: {}\n", *record.check, record.output_verified() ? "passed on every run" : "not passed on every run");
  }
  for (const auto& v : record.variants) {
    for (const auto& r : v.runs) {
      if (r.ok()) continue;
      text += style.red(fmt::format("  {} run {} failed: {}\n", v.name, r.number, r.failure));
      if (!r.output_tail.empty()) text += style.dim("    last output: ") + r.output_tail + (r.output_tail.ends_with('\n') ? "" : "\n");
    }
  }
  return text;
}

Result<std::map<std::string, std::string>> parse_env(const std::vector<std::string>& assignments) {
  std::map<std::string, std::string> out;
  for (const auto& a : assignments) {
    auto kv = launch::parse_assignment(a);
    if (!kv) return std::unexpected(kv.error());
    out[kv->first] = kv->second;
  }
  return out;
}

Result<bench::Options> bench_options(const BenchFlags& f, const std::vector<std::string>& program, const detect::Profile& detected) {
  bench::Options options;
  options.launch = launch_options(f.launch, program.front(), {program.begin() + 1, program.end()}, detected);
  options.no_stage = f.launch.no_stage;
  options.knowledge = knowledge::active().index.version;
  for (std::size_t i = 0; i < 2; ++i) {
    auto env = parse_env(f.variants[i].env);
    if (!env) return std::unexpected(env.error());
    options.variants[i] = {f.variants[i].label.value_or(i == 0 ? "A" : "B"), f.variants[i].runtime, std::move(*env), std::nullopt};
  }
  if (f.b.program) {
    bench::OwnProgram own;
    own.launch = launch_options(f.launch, *f.b.program, f.b.args_given ? f.b.args : options.launch.args, detected);
    own.no_stage = f.launch.no_stage;
    options.variants[1].own = std::move(own);
  } else if (f.b.args_given) {
    return fail(ErrorKind::usage, "--b-args goes with --b-program", "Name B's program with --b-program PATH, or drop --b-args.");
  }
  if (f.runs == "auto") {
    if (!f.target) return fail(ErrorKind::usage, "--runs auto needs --target PCT", "Say how narrow the interval should be: --runs auto --target 2.");
    options.target_percent = f.target;
    options.max_runs = f.max_runs;
  } else {
    const auto runs = whole_number<int>(f.runs);
    if (!runs || *runs < 1 || *runs > 1000) {
      return fail(ErrorKind::usage, fmt::format("--runs '{}' is not a number from 1 to 1000 or 'auto'", f.runs),
                  "Use --runs 8, or --runs auto --target 2.");
    }
    if (f.target) return fail(ErrorKind::usage, "--target goes with --runs auto", "Drop --target, or use --runs auto.");
    options.runs = *runs;
  }
  if (f.metric) {
    auto metric = bench::Metric::compile(*f.metric);
    if (!metric) return std::unexpected(metric.error());
    options.metric = std::move(*metric);
  }
  // The seed's method: with a metric, each run's first value is its warm-up and is dropped.
  options.warmup = f.warmup.value_or(f.metric ? 1 : 0);
  options.better = f.better ? *bench::parse_better(*f.better) : (f.metric ? bench::Better::higher : bench::Better::lower);
  options.expect_exit = f.expect_exit;
  if (f.timeout) options.timeout = std::chrono::milliseconds(static_cast<long long>(*f.timeout * 1000));
  options.check = f.check;
  options.bootstrap.seed = f.seed;
  options.order_seed = f.order_seed;
  options.show_output = f.show_output;
  return options;
}

// --from-record: the record's runs analysed again; the record file itself is left as it is.
Result<CommandOutput> from_record(const std::string& file, const Context& context) {
  auto text = platform::read_file(file);
  if (!text) return std::unexpected(text.error());
  auto parsed = nlohmann::json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return fail(ErrorKind::invalid_input, fmt::format("{} is not JSON", file), "Give a file that zcuda bench wrote.");
  auto record = bench::bench_record_from_json(parsed);
  if (!record) return std::unexpected(std::move(record.error()).with_note(file));
  bench::BenchRecord recomputed = *record;
  recomputed.comparison = bench::analyse(recomputed, bench::settings_of(recomputed));
  CommandOutput output;
  output.json = {{"record", file}, {"stored", bench::to_json(*record).at("comparison")}, {"recomputed", bench::to_json(recomputed).at("comparison")}};
  output.text = fmt::format("Recomputed from {}\n(stored: {}; method {})\n\n", file, record->comparison.summary, record->comparison.method) +
                render(recomputed, context.style);
  return output;
}

struct ProfileApplied {
  std::optional<stage::PlanOptions> placement;
  std::optional<std::string> profile;
  bool no_stage = false;
  std::optional<std::string> native_rocm;  // a torch built for ROCm: runs natively unless a runtime is named
  std::vector<std::string> notices;
  std::function<Status(const family::Identity&)> check_runtime;  // the profile's family against each runtime
};

// The profile a program matches (or --profile names): its variables and launch mode go into
// `launch`; its placement (torch/lib) replaces the program's folder, and a profile that places
// nothing stages nothing either.
Result<ProfileApplied> apply_profile(const LaunchFlags& flags, launch::Options& launch, const detect::Profile& detected, Context& context) {
  ProfileApplied out;
  auto app = app_for_launch(flags.profile, launch, detected, context, true);
  if (!app) return std::unexpected(app.error());
  if (!*app) return out;
  apply_app(**app, launch, true);
  if (auto hooked = add_attention_hook(**app, launch, context); !hooked) return std::unexpected(hooked.error());
  out.placement = placement_for_app(**app, launch.os, detected);
  out.check_runtime = [profile = (*app)->match.profile](const family::Identity& runtime) { return apps::check_runtime_family(profile, runtime); };
  out.profile = (*app)->match.profile.name;
  out.no_stage = !(*app)->setup.stage;
  out.native_rocm = (*app)->setup.native_rocm;
  out.notices = app_notices(**app);
  return out;
}

// A variant whose program is a native ROCm torch and whose runtime was not named runs natively.
void native_unless_named(bench::VariantSpec& variant, const std::optional<std::string>& named, const ProfileApplied& applied, const char* side,
                         Context& context) {
  if (!applied.native_rocm || named) return;
  variant.runtime = "native";
  if (!context.options.quiet) {
    context.notices.print(ui::NoticeKind::notice, fmt::format("variant {}: {}: it runs natively (--{}-runtime names a ZLUDA to use one)",
                                                              variant.label, *applied.native_rocm, side));
  }
}

}  // namespace

CommandRun setup_bench(CLI::App& sub) {
  auto f = std::make_shared<BenchFlags>();
  sub.footer(
      "Usage: zcuda bench [OPTIONS] [--] APP [ARGS...]\n"
      "Runs APP --runs times under each of two variants, in balanced blocks A B B A, B A A B, compared in pairs, each run launched as 'zcuda run' "
      "launches it. "
      "With --metric every match in a run's output is one value; without it a run's wall time is. A run fails on an "
      "unexpected exit code, a crash, --timeout or a failing --check; then the verdict is 'invalid' and zcuda exits 1. "
      "Ctrl-C stops after killing the running program and keeps the record, marked incomplete (exit 12). "
      "Same runtime and environment on both sides is an A/A run: the noise floor. --b-program PATH gives B its own program (the app under "
      "its ZLUDA venv as A, under a ROCm venv as B: docs/backends.md).");
  sub.prefix_command();
  sub.fallthrough(false);
  sub.validate_positionals();
  sub.add_option("APP", f->unused_positional, "The program, then its arguments")
      ->check(CLI::Validator([](std::string&) { return std::string("belongs to the program"); }, "", "program"))
      ->group("");
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string side = i == 0 ? "a" : "b";
    const std::string name = i == 0 ? "A" : "B";
    sub.add_option("--" + side + "-runtime", f->variants[i].runtime,
                   "Variant " + name +
                       "'s runtime: an installed ZLUDA version (v6), a ZLUDA folder, or 'native' for no ZLUDA "
                       "(default: the runtime 'zcuda run' uses)");
    sub.add_option("--" + side + "-env", f->variants[i].env, "Variable for variant " + name + "'s runs (repeatable): NAME=VALUE")
        ->take_all()
        ->expected(1)
        ->allow_extra_args(false);
    sub.add_option("--" + side + "-label", f->variants[i].label, "Name shown for variant " + name);
  }
  sub.add_option("--b-program", f->b.program,
                 "B's own program (another venv's python, another build of APP): B runs it with APP's arguments, or with --b-args; the record "
                 "keeps both programs and their SHA-256");
  auto* b_args =
      sub.add_option("--b-args", f->b.args,
                     "B's arguments instead of APP's, with --b-program (an argument starting with '-' as --b-args=-x; --b-args alone: none)")
          ->expected(0, CLI::detail::expected_max_vector_size)
          ->allow_extra_args(true);
  sub.add_option("--runs", f->runs,
                 "Runs per variant, that is pairs of runs (a directional verdict needs 5), or 'auto' to add pairs until --target is met")
      ->capture_default_str();
  sub.add_option("--target", f->target, "With --runs auto: the 95% interval's half-width to reach, in percent")->check(CLI::PositiveNumber);
  sub.add_option("--max-runs", f->max_runs, "With --runs auto: the most pairs to run")->check(CLI::Range(6, 1000))->capture_default_str();
  sub.add_option("--from-record", f->from_record,
                 "Recompute the comparison of a saved bench record (any schema) with this zcuda's method, and print it; runs nothing");
  sub.add_option("--metric", f->metric, "Regular expression with one capture group; every match in a run's output is one value");
  sub.add_option("--warmup", f->warmup,
                 "Values dropped at the start of every run (default 1 with --metric); without a metric, the first N runs of each variant, rounded up "
                 "to whole blocks of A B B A")
      ->check(CLI::Range(0, 1000000));
  sub.add_option("--better", f->better, "Which direction is better (default: higher with --metric, lower for wall time)")
      ->check(CLI::IsMember({"higher", "lower"}));
  sub.add_option("--expect-exit", f->expect_exit, "Exit code a passing run ends with")->capture_default_str();
  sub.add_option("--timeout", f->timeout, "Seconds a run may take before it is killed and fails")->check(CLI::PositiveNumber);
  sub.add_option("--check", f->check,
                 "Command run through the shell after each run, in the current folder; a non-zero exit fails the run "
                 "(it sees ZCUDA_BENCH_VARIANT and ZCUDA_BENCH_RUN)");
  sub.add_option("--seed", f->seed, "Seed of the bootstrap interval (kept in the record, so it can be recomputed)")->capture_default_str();
  sub.add_option("--order-seed", f->order_seed,
                 "Seed that picks the first block, A B B A or B A A B (default: a fresh one per bench, kept in the record as order_seed)");
  sub.add_flag("--show-output", f->show_output, "Pass the program's output through while it runs (not with --json)");
  add_launch_flags(sub, f->launch);
  add_inline_globals(sub, f->globals, "Print the bench record as JSON on stdout");

  return [f, &sub, b_args](Context& context) -> Result<CommandOutput> {
    f->b.args_given = b_args->count() > 0;
    // `--b-args` with no value: CLI11 gives one empty string; it means no arguments.
    if (f->b.args.size() == 1 && f->b.args.front().empty()) f->b.args.clear();
    if (auto applied = apply_inline_globals(f->globals, context); !applied) return std::unexpected(applied.error());
    if (f->show_output && context.options.json) {
      return fail(ErrorKind::usage, "--show-output cannot be used with --json", "Standard output holds the JSON record; drop one of them.");
    }
    if (f->from_record) return from_record(*f->from_record, context);
    auto program = program_and_args(sub.remaining(), "bench");
    if (!program) return std::unexpected(program.error());
    // The record names the machine's GPUs: full names here.
    const detect::Profile detected = detect_unless_told_not_to(f->launch, true);
    auto options = bench_options(*f, *program, detected);
    if (!options) return std::unexpected(options.error());
    options->cancel = &platform::interrupt_flag();
    // The application's profile: its variables and launch mode in every ZLUDA variant's runs (the
    // runtime stays each variant's own). B's own program is matched on its own.
    auto app = apply_profile(f->launch, options->launch, detected, context);
    if (!app) return std::unexpected(app.error());
    if (!context.options.quiet) {
      for (const auto& n : app->notices) context.notices.print(ui::NoticeKind::notice, n);
    }
    options->placement = app->placement;
    options->profile = app->profile;
    options->check_runtime = app->check_runtime;
    if (app->no_stage) options->no_stage = true;
    ProfileApplied b_applied = *app;
    if (auto& own = options->variants[1].own) {
      auto b_app = apply_profile(f->launch, own->launch, detected, context);
      if (!b_app) return std::unexpected(std::move(b_app.error()).with_note("--b-program"));
      if (!context.options.quiet) {
        for (const auto& n : b_app->notices) {
          if (std::ranges::find(app->notices, n) == app->notices.end()) context.notices.print(ui::NoticeKind::notice, "--b-program: " + n);
        }
      }
      own->placement = b_app->placement;
      own->profile = b_app->profile;
      own->check_runtime = b_app->check_runtime;
      if (b_app->no_stage) own->no_stage = true;
      b_applied = std::move(*b_app);
    }
    native_unless_named(options->variants[0], f->variants[0].runtime, *app, "a", context);
    native_unless_named(options->variants[1], f->variants[1].runtime, b_applied, "b", context);

    TerminalObserver observer(context.options.quiet, !context.options.quiet && platform::is_terminal(stderr));
    auto record = bench::run_bench(*options, context.home, detected, platform::current_environment(), observer);
    if (!record) return std::unexpected(record.error());

    CommandOutput output;
    output.json = bench::to_json(*record);
    output.text = render(*record, context.style);
    if (auto ready = require_home(context); ready) {
      if (auto written = bench::write_bench_record(context.home, *record)) {
        output.json["record"] = path_to_utf8(*written);
        output.text += fmt::format("\n  Record: {}\n", path_to_utf8(*written));
      } else {
        observer.notice("warning: the bench record could not be written: " + written.error().message);
      }
    } else {
      observer.notice("warning: the bench record could not be written: " + ready.error().message);
    }
    if (!record->complete) {
      output.exit_code = exit_code(ErrorKind::interrupted);
    } else if (record->comparison.verdict == bench::Verdict::invalid) {
      output.exit_code = 1;
    }
    return output;
  };
}

}  // namespace zcuda::cli
