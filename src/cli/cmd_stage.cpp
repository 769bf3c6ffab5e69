// zcuda stage: place the runtime's libraries into a program's folder, journaled and reversible.
#include <zcuda/launch/detected.hpp>
#include <zcuda/launch/runtime.hpp>
#include <zcuda/stage/describe.hpp>

#include "command.hpp"
#include "launch_flags.hpp"

namespace zcuda::cli {

CommandRun setup_stage(CLI::App& sub) {
  struct Options {
    std::filesystem::path app;
    RuntimeFlags runtime;
    bool dry_run = false;
    bool all = false;
  };
  auto options = std::make_shared<Options>();
  add_path_option(sub, "APP", options->app, "The program, or the folder of programs, to stage")->required();
  add_runtime_flags(sub, options->runtime, "ZLUDA folder to stage from (default: the installed runtime)");
  sub.add_flag("--dry-run", options->dry_run, "Print the plan and change nothing");
  sub.add_flag("--all", options->all, "Place every library the runtime serves next to the program");
  return [options](Context& context) -> Result<CommandOutput> {
    auto runtime = locate_chosen_runtime(options->runtime, context.home);
    if (!runtime) return std::unexpected(runtime.error());
    stage::PlanOptions plan_options;
    plan_options.app = options->app;
    plan_options.runtime_dir = runtime->dir;
    plan_options.all = options->all;
    plan_options.backends = stage::backends_from_detection(launch::detect_for_launch());
    CommandOutput output;
    if (options->dry_run) {
      auto plan = stage::make_plan(plan_options);
      if (!plan) return std::unexpected(plan.error());
      output.json = stage::to_json(*plan);
      output.json["dry_run"] = true;
      output.text = stage::describe(*plan, context.style);
      if (plan->journal_present) output.text += "The folder has a stage journal: an interrupted stage would be rolled back first.\n";
      output.text += "Dry run: nothing was changed.\n";
      return output;
    }
    auto result = stage::stage(plan_options);
    if (!result) return std::unexpected(result.error());
    output.json = stage::to_json(*result);
    output.json["dry_run"] = false;
    output.text = stage::describe(*result, context.style);
    return output;
  };
}

}  // namespace zcuda::cli
