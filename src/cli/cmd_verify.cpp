// zcuda verify: numerical checks of the CUDA driver and libraries, each in its own process.
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/bench/record.hpp>
#include <zcuda/launch/detected.hpp>
#include <zcuda/launch/load_dialogs.hpp>
#include <zcuda/launch/quarantine.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/launch/launcher.hpp>
#include <zcuda/launch/probe_location.hpp>
#include <zcuda/ui/table.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>
#include <zcuda/verify/ladder.hpp>
#include <zcuda/verify/verify.hpp>

#include <zcuda/apps/check.hpp>

#include "command.hpp"
#include "verify_app.hpp"

namespace zcuda::cli {
namespace {

struct VerifyArgs {
  std::vector<std::string> checks;
  int timeout = 60;
  int jobs = 4;
  std::optional<std::filesystem::path> runtime_dir;
  std::string runtime = "auto";
  bool list = false;
  std::optional<std::filesystem::path> app;
  std::optional<std::string> profile;
};

std::string colored_status(const ui::Style& style, verify::CheckStatus status) {
  const std::string word(to_string(status));
  if (status == verify::CheckStatus::pass) return style.green(word);
  if (status == verify::CheckStatus::unsupported || status == verify::CheckStatus::missing) return style.yellow(word);
  return style.red(word);
}

std::string describe_runtime(const verify::Report& r) {
  const auto& rt = r.runtime;
  std::string text = rt.kind == verify::RuntimeKind::native  ? "the system's CUDA"
                     : rt.kind == verify::RuntimeKind::zluda ? "ZLUDA " + rt.version
                                                             : "folder";
  if (rt.dir) text += " (" + path_to_utf8(*rt.dir) + ")";
  text += "; chosen by " + rt.chosen_by;
  if (r.launch_method != platform::LaunchMethod::system) text += "; put first with " + std::string(to_string(r.launch_method));
  return text;
}

CommandOutput list_output(const Context& context) {
  CommandOutput out;
  nlohmann::json list = nlohmann::json::array();
  ui::Table table({"CHECK", "CORE", "WHAT IT DOES"});
  for (const auto& c : verify::checks()) {
    list.push_back({{"name", c.name}, {"core", c.core}, {"summary", c.summary}});
    table.add_row({context.style.bold(c.name), c.core ? "yes" : "no", c.summary});
  }
  out.json["checks"] = list;
  out.text = table.render();
  return out;
}

CommandOutput render(const Context& context, const verify::Report& report, const std::optional<std::filesystem::path>& saved,
                     const std::string& save_problem) {
  const auto& style = context.style;
  CommandOutput out;
  out.json = report;
  out.json["saved"] = saved ? nlohmann::json(path_to_utf8(*saved)) : nlohmann::json(nullptr);
  out.exit_code = report.passed() ? 0 : 1;

  std::string text = style.bold("Runtime: ") + describe_runtime(report) + "\n";
  text += style.bold("Family:  ") + (report.runtime_family ? family::summary(*report.runtime_family) : "none (the system's CUDA)") + "\n";
  text += style.bold("Stack:   ") + report.stack() + (report.device().empty() ? "" : " (" + report.device() + ")") + "\n\n";
  ui::Table table({"CHECK", "STATUS", "TIME", "DETAIL"});
  for (const auto& c : report.checks) {
    table.add_row({c.core ? c.name : c.name + style.dim(" *"), colored_status(style, c.status), fmt::format("{:.2f} s", c.seconds), c.detail});
  }
  text += table.render();
  text += style.dim("  * not a core check: shown, but does not decide the exit code") + "\n";

  std::set<std::string> seen;
  ui::Table libs({"LIBRARY", "FILE", "SIZE", "SHA-256"});
  for (const auto& c : report.checks) {
    for (const auto& l : c.libraries) {
      const auto& file = l.real_path.empty() ? l.path : l.real_path;
      if (!seen.insert(file).second) continue;
      libs.add_row({l.requested, file, l.size ? format_bytes(*l.size) : "?", l.sha256.empty() ? "(unreadable)" : l.sha256.substr(0, 16) + "…"});
    }
  }
  if (!libs.empty()) text += "\n" + style.bold("Libraries loaded") + "\n" + libs.render();

  if (report.cuda_check) {
    text += "\n" + style.bold("ZLUDA cuda_check") + style.dim(" (load-only: loads each library and creates a handle; computes nothing)") + "\n  " +
            report.cuda_check->outcome + "\n";
    for (const auto& line : report.cuda_check->lines) text += "  " + line + "\n";
  }

  // The headline and its tally count the same checks; the others are counted apart.
  const verify::Summary summary = verify::summarize(report);
  text += "\n";
  if (summary.explicit_selection) {
    text += summary.passed ? style.green(fmt::format("All {} selected checks pass", summary.counted))
                           : style.red(fmt::format("{} of {} selected checks pass", summary.counted_passed, summary.counted));
  } else {
    text += summary.passed ? style.green(fmt::format("All {} core checks pass", summary.counted))
                           : style.red(fmt::format("{} of {} core checks pass", summary.counted_passed, summary.counted));
  }
  if (!summary.statuses.empty()) text += fmt::format(" ({})", verify::tally(summary.statuses));
  if (!summary.others.empty()) text += fmt::format("; other checks: {}", verify::tally(summary.others));
  text += fmt::format(", in {}.\n", format_duration(report.seconds));
  const auto level = verify::ladder::assess(verify::ladder::outcomes(report.checks), report.application_verified);
  text += style.bold("Level: ") + verify::ladder::describe(level) + "\n";
  if (saved) text += style.dim("Saved to " + path_to_utf8(*saved)) + "\n";
  if (!save_problem.empty()) text += ui::notice_text(style, ui::NoticeKind::warning, "the results were not saved: " + save_problem) + "\n";
  out.text = text;
  return out;
}

}  // namespace

CommandRun setup_verify(CLI::App& sub) {
  auto args = std::make_shared<VerifyArgs>();
  sub.add_option("--check", args->checks, "Run only this check (repeatable; see --list)");
  auto* timeout =
      sub.add_option("--timeout", args->timeout, "Seconds each check may take before its process tree is killed (default 60; with --app 300)")
          ->check(CLI::Range(1, 3600));
  sub.add_option("--jobs", args->jobs, "Checks run at once; timing checks always run alone (default 4)")->check(CLI::Range(1, 64));
  auto* dir = add_path_option(sub, "--runtime-dir", args->runtime_dir, "Test the CUDA libraries in DIR (for example a ZLUDA folder)");
  auto* runtime_option = sub.add_option("--runtime", args->runtime,
                                        "auto: the installed ZLUDA, else the system's CUDA; native: the system's CUDA; zluda: the installed ZLUDA; "
                                        "NAME: an installed version or an adopted runtime (zcuda install --list)");
  dir->excludes(runtime_option);
  sub.add_flag("--list", args->list, "List the checks and exit");
  add_path_option(sub, "--app", args->app,
                  "Check an application instead: its own check (PyTorch: the torch check) in its own interpreter, launched as zcuda run "
                  "would (docs/apps.md)");
  sub.add_option("--profile", args->profile, "With --app: the application profile (default: the one APP matches)");

  return [args, timeout](Context& context) -> Result<CommandOutput> {
    if (args->list) return list_output(context);
    if (args->app) {
      // An application's check imports torch and compiles kernels: 300 s unless --timeout says.
      VerifyAppOptions app{*args->app, args->profile, args->runtime_dir, args->runtime, timeout->count() > 0 ? args->timeout : 300};
      return verify_app(app, context);
    }
    auto runtime = verify::resolve_runtime(args->runtime_dir, args->runtime, context.home);
    if (!runtime) return std::unexpected(runtime.error());
    if (const auto quarantined = launch::quarantined_files(context.home); !quarantined.empty() && !context.options.quiet) {
      context.notices.print(ui::NoticeKind::warning, launch::quarantine_message(quarantined) + ". " + launch::quarantine_advice(context.home));
    }
    auto probe = launch::find_probe();
    if (!probe) return std::unexpected(probe.error());
    verify::Options options;
    options.checks = args->checks;
    options.timeout = std::chrono::seconds(args->timeout);
    options.jobs = args->jobs;
    options.runtime = *runtime;
    options.probe = *probe;
    if (runtime->dir) {
      // Through zluda.exe the probe's path and arguments are encoded for how it passes them.
      auto join = launch::launcher_join_for_runtime(*runtime->dir, context.home_usable ? std::optional(context.home.state) : std::nullopt);
      if (!join) return std::unexpected(join.error());
      options.launcher_join = *join;
      // Windows: a HIP library ZLUDA cannot find opens a modal dialog the probe would wait on.
      if (platform::current_os() == platform::Os::windows) {
        options.load_dialogs = launch::predicted_load_dialogs(*runtime->dir, launch::detect_for_launch(false));
        for (const auto& dialog : options.load_dialogs) {
          if (!context.options.quiet) {
            context.notices.print(ui::NoticeKind::warning,
                                  fmt::format("{}; verify does not start the {} checks", launch::describe(dialog), dialog.cuda_role));
          }
        }
      }
    }
    auto report = verify::run(options);
    if (!report) return std::unexpected(report.error());
    // The ladder's top level needs an application: a bench on this machine whose output check passed.
    report->application_verified = bench::any_output_verified(context.home) || apps::any_check_passed(context.home);

    std::optional<std::filesystem::path> saved;
    std::string problem;
    if (!context.home_usable) {
      problem = "the zcuda home folder could not be created";
    } else if (auto written = verify::save(*report, context.home)) {
      saved = *written;
    } else {
      problem = written.error().message;
      spdlog::warn("verify results not saved: {}", problem);
    }
    return render(context, *report, saved, problem);
  };
}

}  // namespace zcuda::cli
