// zcuda run: stage when needed, set the environment ZLUDA needs, launch the program with its
// arguments exactly as given, and exit with its exit code.
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/core/path_format.hpp>
#include <zcuda/core/version.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/platform/utf8.hpp>
#include <zcuda/stage/describe.hpp>

#include <zcuda/launch/detected.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct RunOptions {
  std::optional<std::filesystem::path> runtime_dir;
  std::optional<std::filesystem::path> hip_path;
  std::optional<std::filesystem::path> libtorch;
  std::optional<std::string> gfx;
  std::optional<std::string> device;
  std::string zluda_cc = launch::kDefaultZludaCc;
  std::vector<std::string> env;
  bool no_stage = false;
  bool direct = false;
  bool no_detect = false;
  bool print_env = false;
  bool json = false;
  bool quiet = false;
  std::optional<std::filesystem::path> home;
  std::vector<std::string> unused_positional;
};

// zcuda's own messages go to stderr: stdout belongs to the program.
void note(const Context& context, ui::NoticeKind kind, const std::string& text) {
  if (!context.options.quiet) context.notices.print(kind, text);
}

std::string describe_env(const launch::LaunchPlan& plan) {
  std::string out;
  for (const auto& c : plan.changes) {
    out += fmt::format("{}={}\n", c.name, c.after);
    out += fmt::format("    # {}{}\n", c.why, c.before ? fmt::format(" (was: {})", *c.before) : " (was unset)");
  }
  out += fmt::format("# command: {}", plan.program);
  for (const auto& a : plan.args) out += " " + platform::quote_windows_argument(a);
  return out + "\n";
}

}  // namespace

CommandRun setup_run(CLI::App& sub) {
  auto o = std::make_shared<RunOptions>();
  sub.footer("Usage: zcuda run [OPTIONS] [--] APP [ARGS...]\nEverything after APP is passed to the program unchanged, even what looks like an option; '--' is only "
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
  add_path_option(sub, "--runtime-dir", o->runtime_dir, "ZLUDA folder (default: the installed runtime)");
  sub.add_flag("--no-stage", o->no_stage, "Do not stage the program's folder before launching");
  sub.add_flag("--direct", o->direct, "Windows: launch the program itself, not through zluda.exe");
  sub.add_flag("--print-env", o->print_env, "Print the environment and command that would run, and stop");
  sub.add_option("--env", o->env, "Set or override a variable for the program (repeatable): --env NAME=VALUE")->take_all()->expected(1)->allow_extra_args(false);
  sub.add_option("--zluda-cc", o->zluda_cc, "Compute capability ZLUDA reports (ZLUDA_CC)")->capture_default_str();
  sub.add_option("--gfx", o->gfx, "GPU architecture (e.g. gfx1200): use its own rocBLAS/hipBLASLt kernel folders");
  sub.add_option("--device", o->device, "HIP device to use (sets HIP_VISIBLE_DEVICES; default: the discrete GPU when an integrated one is enumerated first)");
  sub.add_flag("--no-detect", o->no_detect, "Do not consult detection for --device, --gfx, --hip-path and MIOpen");
  add_path_option(sub, "--hip-path", o->hip_path, "HIP SDK / ROCm folder (default: HIP_PATH, then ROCm's)");
  add_path_option(sub, "--libtorch", o->libtorch, "LibTorch folder: its libraries are found first (Linux: lib/ on LD_LIBRARY_PATH; Windows: lib/ and bin/ on PATH)");
  // Global flags are also accepted between 'run' and APP (fallthrough is off for this command).
  sub.add_flag("--json", o->json, "Print machine-readable JSON on stdout (after the program's own output)");
  sub.add_flag("-q,--quiet", o->quiet, "Show only errors");
  add_path_option(sub, "--home", o->home, "Folder for everything zcuda writes (as the global --home)");

  return [o, &sub](Context& context) -> Result<CommandOutput> {
    if (o->json) context.options.json = true;
    if (o->quiet) context.options.quiet = true;
    if (o->home) {
      auto home = app::resolve_home(o->home);
      if (!home) return std::unexpected(home.error());
      context.home = *home;
      context.home_usable = app::create_home_folders(context.home).has_value();
    }
    std::vector<std::string> rest = sub.remaining();
    if (!rest.empty() && rest.front() == "--") {
      rest.erase(rest.begin());
    } else if (!rest.empty() && rest.front().size() > 1 && rest.front().front() == '-') {
      return fail(ErrorKind::usage, fmt::format("'{}' is not an option of zcuda run", rest.front()),
                  "Options of zcuda run go before APP (global ones such as -v before 'run'); if the program's name starts "
                  "with '-', write: zcuda run -- APP.");
    }
    if (rest.empty()) return fail(ErrorKind::usage, "zcuda run needs a program to run", "Usage: zcuda run [OPTIONS] [--] APP [ARGS...]");

    launch::LaunchOptions options;
    options.program = platform::path_from_utf8(rest.front());
    options.args.assign(rest.begin() + 1, rest.end());
    options.hip_path = o->hip_path;
    options.libtorch = o->libtorch;
    options.zluda_cc = o->zluda_cc;
    options.gfx = o->gfx;
    options.device = o->device;
    options.direct = o->direct;
    // Detection fills what the user did not set: the discrete GPU when an integrated one comes
    // first, its gfx for the kernel folders, the HIP SDK / ROCm root, and whether MIOpen exists.
    const detect::Profile detected = o->no_detect ? detect::Profile{} : launch::detect_for_launch();
    launch::apply_detected(options, launch::settings_from_profile(detected));
    for (const auto& assignment : o->env) {
      auto kv = launch::parse_assignment(assignment);
      if (!kv) return std::unexpected(kv.error());
      options.overrides.push_back(*kv);
    }
    auto runtime = launch::locate_runtime(o->runtime_dir, context.home);
    if (!runtime) return std::unexpected(runtime.error());
    options.runtime = *runtime;
    auto plan = launch::prepare_launch(options, platform::current_environment());
    if (!plan) return std::unexpected(plan.error());

    CommandOutput output;
    output.json = launch::to_json(*plan);
    output.json["runtime"] = {{"dir", runtime->dir.string()}, {"chosen_by", runtime->chosen_by}};
    if (o->print_env) {
      output.text = describe_env(*plan);
      return output;
    }

    bool staged = false;
    const auto os = platform::current_os();
    if (!o->no_stage && stage::uses_cuda_libraries(plan->target, os)) {
      stage::PlanOptions stage_options;
      stage_options.app = plan->target;
      stage_options.runtime_dir = runtime->dir;
      stage_options.os = os;
      stage_options.backends = stage::backends_from_detection(detected);
      auto result = stage::stage(stage_options);
      if (!result) return std::unexpected(std::move(result.error()).with_note("the program was not started; --no-stage skips staging"));
      if (result->recovered) note(context, ui::NoticeKind::notice, stage::describe(*result->recovered));
      if (result->placed > 0) {
        note(context, ui::NoticeKind::notice,
             fmt::format("staged {} file{} into {} (journaled; 'zcuda unstage {}' restores the folder)", result->placed,
                                  result->placed == 1 ? "" : "s", result->plan.root, result->plan.root));
      }
      for (const auto& n : result->plan.names) {
        if (n.service == stage::Service::no_backend || n.service == stage::Service::not_in_runtime || n.service == stage::Service::stub) {
          note(context, ui::NoticeKind::warning, fmt::format("{}: {}", n.name, n.note));
        }
      }
      staged = true;
      output.json["stage"] = stage::to_json(*result);
    }

    platform::ProcessSpec spec;
    spec.program = plan->program;
    spec.args = plan->args;
    spec.environment = plan->environment;
    spec.streams = platform::StreamMode::inherit;
    const auto started = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    spdlog::debug("launching {} with {} argument(s)", plan->program, plan->args.size());
    auto ran = platform::run_process(spec);
    if (!ran) return std::unexpected(ran.error());

    launch::RunRecord record;
    record.started_utc = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", started);
    record.seconds = ran->seconds;
    record.exit_code = ran->exit_code;
    record.signal = ran->signal;
    record.program = plan->target.string();
    record.arg_count = options.args.size();
    record.runtime_dir = runtime->dir.string();
    record.runtime_chosen_by = runtime->chosen_by;
    record.runtime_version = runtime->version;
    record.zcuda_version = std::string(version());
    record.staged = staged;
    for (const auto& c : plan->changes) record.environment.push_back({c.name, c.after});
    if (context.home_usable) {
      if (auto written = launch::write_run_record(context.home, record); written) {
        output.json["record"] = written->string();
      } else {
        spdlog::warn("could not keep a run record: {}", written.error().message);
      }
    }
    output.json["exit_code"] = ran->exit_code;
    output.json["signal"] = ran->signal ? nlohmann::json(*ran->signal) : nlohmann::json(nullptr);
    output.json["seconds"] = ran->seconds;
    if (ran->exit_code != 0) spdlog::debug("{} ended: {}", plan->target, platform::describe_exit(*ran));
    output.exit_code = ran->exit_code;
    return output;
  };
}

}  // namespace zcuda::cli
