// zcuda run: stage when needed, set the environment ZLUDA needs, launch the program with its
// arguments exactly as given, and exit with its exit code.
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/apps/runtime_match.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/time_name.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/explain/explain.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/quarantine.hpp>
#include <zcuda/launch/launcher.hpp>
#include <zcuda/launch/load_dialogs.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/launch/trace.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/stage/for_launch.hpp>
#include <zcuda/warmup/warmup.hpp>

#include "app_launch.hpp"
#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"
#include "launch_flags.hpp"

namespace zcuda::cli {

namespace {

// How much of a program's stderr run keeps to explain a failure: the message is near the end.
constexpr std::size_t kExplainTail = 64u << 10;

struct RunOptions {
  RuntimeFlags runtime;
  LaunchFlags launch;
  std::vector<std::string> env;
  bool print_env = false;
  bool no_explain = false;
  bool trace = false;
  InlineGlobals globals;
  std::vector<std::string> unused_positional;
};

// zcuda's own messages go to stderr: stdout belongs to the program.
void note(const Context& context, ui::NoticeKind kind, const std::string& text) {
  if (!context.options.quiet) context.notices.print(kind, text);
}

// Linux: a folder of this run's own for zluda_trace (ZLUDA_LOG_DIR), so every file in it is this
// run's; made only when the program is launched.
std::filesystem::path trace_folder(const home::Home& home) { return home.state / "traces" / time_ordered_name(); }

// The compute capability the program will see and why (zcuda sets ZLUDA_CC only for --zluda-cc).
std::string describe_compute_capability(const launch::ComputeCapability& cc) {
  return fmt::format("# compute capability: {} ({})\n", cc.value.value_or("unknown"), cc.why);
}

// Which ZLUDA the runtime is, its release where the files tell, and the evidence.
std::string describe_runtime_family(const family::Identity& identity) {
  std::string out =
      fmt::format("# runtime family: {}{}\n", family::to_string(identity.family), identity.release ? " (release " + *identity.release + ")" : "");
  for (const auto& line : identity.evidence) out += fmt::format("    # {}\n", line);
  return out;
}

std::string describe_env(const launch::LaunchPlan& plan, const std::optional<AppLaunch>& app, platform::Os os) {
  std::string out;
  if (app) {
    out += fmt::format("# profile {}: {}\n", app->match.profile.name, fmt::join(app->match.why, "; "));
    for (const auto& skipped : app->setup.skipped) out += fmt::format("# {}\n", skipped);
    // The warning run gives before launching, here too: this torch cannot work with the profile's ZLUDA.
    if (app->setup.flavour_problem) out += fmt::format("# problem: {}\n", *app->setup.flavour_problem);
    for (const auto& line : app_launch_notes(*app, plan, os)) out += fmt::format("# {}\n", line);
    // run refuses this launch (exit 14); --print-env shows it.
    if (auto mismatch = apps::family_mismatch(app->match.profile, plan.runtime_family)) out += fmt::format("# problem: {}\n", *mismatch);
  }
  for (const auto& c : plan.changes) {
    out += c.removed ? fmt::format("unset {}\n", c.name) : fmt::format("{}={}\n", c.name, c.after);
    out += fmt::format("    # {}{}\n", c.why, c.before ? fmt::format(" (was: {})", *c.before) : " (was unset)");
  }
  out += describe_runtime_family(plan.runtime_family);
  out += describe_compute_capability(plan.compute_capability);
  if (plan.trace_dir) out += fmt::format("# traces: under {}\n", path_to_utf8(*plan.trace_dir));
  out += fmt::format("# command: {}", plan.program);
  for (const auto& a : plan.args) out += " " + platform::quote_windows_argument(a);
  return out + "\n";
}

// The runtime to launch with; when none is found, files the antivirus took are the likelier cause.
Result<launch::RuntimeLocation> runtime_for_run(const RunOptions& o, const Context& context) {
  auto runtime = locate_chosen_runtime(o.runtime, context.home);
  if (runtime) return runtime;
  Error error = runtime.error();
  if (const auto quarantined = launch::quarantined_files(context.home); !o.runtime.given() && !quarantined.empty()) {
    error.with_note(launch::quarantine_message(quarantined));
    error.hint = launch::quarantine_advice(context.home);
  }
  return std::unexpected(std::move(error));
}

// The launch's options: the program and its arguments, --env, the runtime, --trace's folder.
// A torch built for ROCm (apps/native_rocm.hpp) runs natively, unless a runtime is named.
bool launches_natively(const std::optional<AppLaunch>& app, const RunOptions& o) { return app && app->setup.native_rocm && !o.runtime.given(); }

// The application's profile (app_launch.hpp) picks its own ZLUDA folder when it has one and
// neither --runtime-dir nor --runtime names one.
Result<launch::Options> launch_options_for(const RunOptions& o, const std::vector<std::string>& rest, const detect::Profile& detected,
                                           const Context& context, std::optional<AppLaunch>& app) {
  launch::Options options = launch_options(o.launch, rest.front(), {rest.begin() + 1, rest.end()}, detected);
  for (const auto& assignment : o.env) {
    auto kv = launch::parse_assignment(assignment);
    if (!kv) return std::unexpected(kv.error());
    options.overrides.push_back(*kv);
  }
  auto recognised = app_for_launch(o.launch.profile, options, detected, context, !o.print_env);
  if (!recognised) return std::unexpected(recognised.error());
  app = std::move(*recognised);
  // A native ROCm torch needs no ZLUDA: none is looked for unless one is named.
  if (launches_natively(app, o)) {
    options.direct = true;
    options.settings.clear();
    return options;
  }
  if (!app || !app->setup.app_runtime || o.runtime.given()) {
    auto runtime = runtime_for_run(o, context);
    if (!runtime) return std::unexpected(runtime.error());
    options.runtime = *runtime;
  }
  if (app) {
    apply_app(*app, options, o.runtime.given());
    if (auto hooked = add_attention_hook(*app, options, context); !hooked) return std::unexpected(hooked.error());
  }
  options.trace = o.trace;
  if (o.trace && options.os != platform::Os::windows) {
    if (!context.home_usable) {
      return fail(ErrorKind::environment,
                  fmt::format("--trace keeps the traces under zcuda's home ({}), which cannot be written", context.home.state),
                  "Choose a writable home with --home or ZCUDA_HOME.");
    }
    options.trace_log_dir = trace_folder(context.home);
  }
  return options;
}

// A profile's placement (torch/lib under the application's names) instead of the program's folder.
// `hold`: the folder's lock, shared, kept for the program's run.
Result<bool> place_before_run(const AppLaunch& app, const launch::LaunchPlan& plan, const detect::Profile& detected, const Context& context,
                              CommandOutput& output, platform::FileLock& hold) {
  auto placed = place_for_app(app, plan.runtime_dir, platform::current_os(), detected);
  if (!placed) return std::unexpected(placed.error());
  if (!*placed) return false;
  hold = std::move((*placed)->hold);
  const stage::StageResult& result = (*placed)->result;
  if (result.placed > 0) {
    note(context, ui::NoticeKind::notice,
         fmt::format("profile {}: placed {} file(s) into {} (journaled; 'zcuda unstage {}' restores it)", app.setup.profile, result.placed,
                     result.plan.root, result.plan.root));
  }
  for (const auto& p : result.plan.placements) {
    if (p.holds_runtime_file) {
      note(context, ui::NoticeKind::notice,
           fmt::format("{} already holds ZLUDA's {} (the application's installer put it there): not an original", p.relative, p.name));
    }
  }
  output.json["stage"] = stage::to_json(result);
  return true;
}

// Puts the program's folder in the state the launch needs; whether anything was staged.
Result<bool> stage_before_run(const launch::LaunchPlan& plan, const detect::Profile& detected, const Context& context, CommandOutput& output,
                              platform::FileLock& hold, platform::FolderListings& listings) {
  auto staging = stage::stage_for_launch(plan.target, plan.runtime_dir, platform::current_os(), detected, &listings);
  if (!staging) return std::unexpected(staging.error());
  hold = std::move(staging->hold);
  for (const auto& n : staging->notices) note(context, ui::NoticeKind::notice, n);
  for (const auto& w : staging->warnings) note(context, ui::NoticeKind::warning, w);
  if (!staging->result) return false;
  output.json["stage"] = stage::to_json(*staging->result);
  return true;
}

// The run's traces are the files that appear (or change) in zluda_trace's folder: what is there
// before the launch.
Result<launch::TraceSnapshot> traces_before_run(const launch::LaunchPlan& plan, platform::Os os) {
  if (!plan.trace_dir) return launch::TraceSnapshot{};
  std::error_code ec;
  if (os != platform::Os::windows) std::filesystem::create_directories(*plan.trace_dir, ec);
  if (ec) return std::unexpected(io_error("create folder", *plan.trace_dir, ec));
  return launch::snapshot_traces(*plan.trace_dir, plan.trace_program, os);
}

// The files the run added to zluda_trace's folder, said after the program's output and kept in
// the run record for report --bundle.
void keep_traces(const launch::LaunchPlan& plan, const launch::TraceSnapshot& before, platform::Os os, const Context& context, CommandOutput& output,
                 launch::RunRecord& record) {
  if (!plan.trace_dir) return;
  launch::RecordedTraces traces{path_to_utf8(*plan.trace_dir), {}};
  for (const auto& file : launch::new_trace_files(before, launch::snapshot_traces(*plan.trace_dir, plan.trace_program, os))) {
    traces.files.push_back(path_to_utf8(file));
  }
  note(context, ui::NoticeKind::notice,
       traces.files.empty()
           ? fmt::format("--trace: no trace files appeared under {} (zluda_trace writes them once the program loads CUDA)", *plan.trace_dir)
           : fmt::format("--trace: {} trace file(s) under {}; zcuda report --bundle takes them", traces.files.size(), *plan.trace_dir));
  output.json["traces"] = {{"folder", traces.folder}, {"files", traces.files}};
  record.traces = std::move(traces);
}

// The program itself, with the console as its own; stderr's tail is kept to explain a failure.
Result<platform::ProcessResult> launch_program(const launch::LaunchPlan& plan, bool keep_stderr_tail) {
  platform::ProcessSpec spec;
  spec.program = plan.program;
  spec.args = plan.args;
  spec.environment = plan.environment;
  spec.streams = platform::StreamMode::inherit;
  if (keep_stderr_tail) spec.stderr_tail = kExplainTail;
  spdlog::debug("launching {} with {} argument(s)", plan.program, plan.args.size());
  return platform::run_process(spec);
}

launch::RunRecord run_record_of(const launch::LaunchPlan& plan, const launch::Options& options, const platform::ProcessResult& ran,
                                std::chrono::sys_seconds started, bool staged) {
  launch::RunRecord record;
  record.started_utc = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", started);
  record.seconds = ran.seconds;
  record.exit_code = ran.exit_code;
  record.signal = ran.signal;
  record.program = path_to_utf8(plan.target);
  record.arg_count = options.args.size();
  record.runtime_dir = path_to_utf8(options.runtime.dir);
  record.runtime_chosen_by = launch::to_string(options.runtime.chosen_by);
  record.runtime_version = options.runtime.version;
  record.zcuda_version = std::string(version());
  record.knowledge = knowledge::active().index.version;
  record.staged = staged;
  for (const auto& c : plan.changes) record.environment.push_back({c.name, c.after});
  return record;
}

// A failed program's own stderr may hold a failure users hit often: say what it means, after its output.
void explain_if_known(const platform::ProcessResult& ran, const explain::MachineFacts& facts, const Context& context, CommandOutput& output,
                      launch::RunRecord& record) {
  // A loader status (0xC0000135 ...) stands for a Windows dialog that never reaches stderr.
  auto explained = explain::explain_failure(ran.err_tail, facts, ran.exception_status);
  if (!explained) return;
  std::string block = explain::render_text(*explained);
  if (block.ends_with('\n')) block.pop_back();
  note(context, ui::NoticeKind::note, "the program failed with a known failure (zcuda explain):\n" + block);
  record.explained = launch::ExplainedFailure{explained->id, explained->title};
  output.json["explained"] = explain::to_json(*explained);
}

// Kept for report; losing it does not fail the run.
void keep_run_record(const launch::RunRecord& record, const Context& context, CommandOutput& output) {
  if (!context.home_usable) return;
  if (auto written = launch::write_run_record(context.home, record); written) {
    output.json["record"] = path_to_utf8(*written);
  } else {
    spdlog::warn("could not keep a run record: {}", written.error().message);
  }
}

}  // namespace

CommandRun setup_run(CLI::App& sub) {
  auto o = std::make_shared<RunOptions>();
  sub.footer(
      "Usage: zcuda run [OPTIONS] [--] APP [ARGS...]\nEverything after APP is passed to the program unchanged, even what looks like an option; '--' "
      "is only "
      "needed when APP starts with '-'. zcuda exits with the program's exit code (128+N when a signal N ends it).");
  // Everything from the first non-option on is the program's: with prefix_command CLI11 moves
  // it, and all after it, to remaining(). A positional that accepts nothing makes CLI11 keep a
  // leading '--' (and what follows) for us instead of handing it back to the main parser.
  sub.prefix_command();
  sub.fallthrough(false);
  sub.validate_positionals();
  sub.add_option("APP", o->unused_positional, "The program, then its arguments")
      ->check(CLI::Validator([](std::string&) { return std::string("belongs to the program"); }, "", "program"))
      ->group("");
  add_runtime_flags(sub, o->runtime, "ZLUDA folder (default: the installed runtime)");
  add_launch_flags(sub, o->launch);
  sub.add_flag("--print-env", o->print_env, "Print the environment and command that would run, and stop");
  sub.add_flag("--trace", o->trace,
               "Run through ZLUDA's trace libraries (Windows: zluda.exe --zluda-trace) for a maintainer; zcuda report --bundle "
               "takes the trace files");
  sub.add_flag("--no-explain", o->no_explain, "Do not match a failed program's stderr against the known failures (zcuda explain)");
  sub.add_option("--env", o->env, "Set or override a variable for the program (repeatable): --env NAME=VALUE")
      ->take_all()
      ->expected(1)
      ->allow_extra_args(false);
  // Global flags are also accepted between 'run' and APP (fallthrough is off for this command).
  add_inline_globals(sub, o->globals, "Print machine-readable JSON on stdout (after the program's own output)");

  return [o, &sub](Context& context) -> Result<CommandOutput> {
    if (auto applied = apply_inline_globals(o->globals, context); !applied) return std::unexpected(applied.error());
    auto rest = program_and_args(sub.remaining(), "run");
    if (!rest) return std::unexpected(rest.error());
    const detect::Profile detected = detect_unless_told_not_to(o->launch);
    std::optional<AppLaunch> app;
    auto options = launch_options_for(*o, *rest, detected, context, app);
    if (!options) return std::unexpected(options.error());
    const launch::RuntimeLocation& runtime = options->runtime;
    const auto quarantined = launches_natively(app, *o) ? std::vector<std::string>{} : launch::quarantined_files(runtime, context.home);
    if (!quarantined.empty()) {
      note(context, ui::NoticeKind::warning, launch::quarantine_message(quarantined) + ". " + launch::quarantine_advice(context.home));
    }
    const bool native = launches_natively(app, *o);
    // Through zluda.exe: how this launcher passes arguments (learned once per launcher).
    if (auto learned =
            native ? Status{} : launch::learn_launcher_join(*options, context.home_usable ? std::optional(context.home.state) : std::nullopt);
        !learned) {
      return std::unexpected(learned.error());
    }
    auto plan = native ? launch::prepare_native_launch(*options, platform::current_environment())
                       : launch::prepare_launch(*options, platform::current_environment());
    if (!plan) return std::unexpected(plan.error());

    CommandOutput output;
    output.json = launch::to_json(*plan);
    output.json["runtime"] =
        native ? nlohmann::json{{"dir", nullptr}, {"chosen_by", "native-rocm"}}
               : nlohmann::json{{"dir", path_to_utf8(runtime.dir)}, {"chosen_by", std::string(launch::to_string(runtime.chosen_by))}};
    if (app) output.json["profile"] = {{"match", apps::to_json(app->match)}, {"setup", apps::to_json(app->setup)}};
    if (o->print_env) {
      output.text = describe_env(*plan, app, options->os);
      return output;
    }
    // The mixed-family check, the stage decision and the first-run scan all read the program's
    // folder: it is listed once for the three.
    platform::FolderListings listings;
    if (!native) {
      if (auto unmixed = launch::check_families(*plan, options->os, &listings); !unmixed) return std::unexpected(unmixed.error());
    }
    if (app && !native) {
      if (auto matched = apps::check_runtime_family(app->match.profile, plan->runtime_family); !matched) return std::unexpected(matched.error());
    }
    if (app) {
      for (const auto& n : app_notices(*app)) note(context, ui::NoticeKind::notice, n);
      for (const auto& n : app_launch_notes(*app, *plan, options->os)) note(context, ui::NoticeKind::notice, n);
      if (app->setup.flavour_problem) note(context, ui::NoticeKind::warning, *app->setup.flavour_problem);
      if (native) {
        note(context, ui::NoticeKind::notice,
             fmt::format("profile {}: {}; launched natively: no ZLUDA placed, no ZLUDA variables set (--runtime NAME uses ZLUDA all the same)",
                         app->setup.profile, *app->setup.native_rocm));
      }
    }
    bool staged = false;
    // Held until the program ends: no other zcuda process changes the staged folder under it.
    platform::FileLock folder_hold;
    if (app && !o->launch.no_stage && (app->setup.place_into || !app->setup.stage)) {
      auto placed = place_before_run(*app, *plan, detected, context, output, folder_hold);
      if (!placed) return std::unexpected(placed.error());
      staged = *placed;
      if (staged) listings = {};  // the placement changed folders the listings may hold
    } else if (!o->launch.no_stage) {
      auto staging = stage_before_run(*plan, detected, context, output, folder_hold, listings);
      if (!staging) return std::unexpected(staging.error());
      staged = *staging;
    }
    if (!native && !context.options.json && !context.options.quiet) {
      // A profile knows where the application's kernels are (torch/lib, Cycles' lib), or that
      // zcuda warmup cannot compile them (lshqqytiger's ZLUDA has no zluda_precompile): then
      // the notice, which offers warmup, is not given.
      const bool warmable = !app || app->match.profile.warmup.kind != apps::Warmup::Kind::none;
      const auto kernels = app && !app->setup.kernels.empty() ? app->setup.kernels.front() : plan->target;
      if (auto slow = warmable ? warmup::first_run_notice(kernels, runtime.dir, &listings) : std::nullopt)
        note(context, ui::NoticeKind::notice, *slow);
      // Windows: a HIP library ZLUDA cannot find stops the program on a modal dialog.
      for (const auto& dialog : launch::predicted_load_dialogs(runtime.dir, detected)) {
        note(context, ui::NoticeKind::warning,
             fmt::format("{}; a program that uses {} stops there (zcuda detect says what to install)", launch::describe(dialog), dialog.cuda_role));
      }
    }
    auto traces_before = traces_before_run(*plan, options->os);
    if (!traces_before) return std::unexpected(traces_before.error());

    const auto started = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto ran = launch_program(*plan, !o->no_explain);
    if (!ran) return std::unexpected(ran.error());

    launch::RunRecord record = run_record_of(*plan, *options, *ran, started, staged);
    keep_traces(*plan, *traces_before, options->os, context, output, record);
    if (ran->exit_code != 0 && !o->no_explain) {
      auto facts = explain::machine_facts(o->launch.no_detect ? std::nullopt : std::optional(detected), quarantined);
      // A zluda_* export not found is a mixed-family failure: the explanation names the runtime's family.
      if (plan->runtime_family.family != family::Family::unknown) facts.runtime_family = std::string(family::to_string(plan->runtime_family.family));
      explain_if_known(*ran, facts, context, output, record);
    }
    keep_run_record(record, context, output);
    output.json["exit_code"] = ran->exit_code;
    output.json["signal"] = ran->signal ? nlohmann::json(*ran->signal) : nlohmann::json(nullptr);
    output.json["seconds"] = ran->seconds;
    if (ran->exit_code != 0) spdlog::debug("{} ended: {}", plan->target, platform::describe_exit(*ran));
    output.exit_code = ran->exit_code;
    return output;
  };
}

}  // namespace zcuda::cli
