#include "command.hpp"
#include <zcuda/base/path_text.hpp>

namespace zcuda::cli {

CommandRun setup_detect(CLI::App& sub);
CommandRun setup_install(CLI::App& sub);
CommandRun setup_report(CLI::App& sub);
CommandRun setup_verify(CLI::App& sub);
CommandRun setup_stage(CLI::App& sub);
CommandRun setup_unstage(CLI::App& sub);
CommandRun setup_run(CLI::App& sub);
CommandRun setup_bench(CLI::App& sub);
CommandRun setup_explain(CLI::App& sub);
CommandRun setup_cache(CLI::App& sub);
CommandRun setup_warmup(CLI::App& sub);
CommandRun setup_apps(CLI::App& sub);
CommandRun setup_update(CLI::App& sub);
CommandRun setup_version(CLI::App& sub);

// Only commands that work are registered here.
const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> table = {
      {"detect", "Explain whether this machine can run CUDA programs through ZLUDA", &setup_detect},
      {"install", "Download, verify and install the pinned ZLUDA (and optionally LibTorch)", &setup_install},
      {"verify", "Check numerically that the CUDA driver and libraries compute correctly", &setup_verify},
      {"stage", "Place ZLUDA's libraries into a program's folder (journaled, reversible)", &setup_stage},
      {"unstage", "Restore a staged folder byte for byte", &setup_unstage},
      {"run", "Run a program through ZLUDA with the right environment", &setup_run},
      {"apps", "List the application profiles; say which one a folder or program matches, and why", &setup_apps},
      {"bench", "Run a program under two runtimes alternated, check its output, and compare (A/B)", &setup_bench},
      {"explain", "Say what a failure message (a log, piped output, or a symptom with no message) means and how to fix it, with this machine's facts",
       &setup_explain},
      {"warmup", "Compile a program's GPU kernels into ZLUDA's cache ahead of its first run", &setup_warmup},
      {"cache", "List the kernel caches (ZLUDA, MIOpen, Triton, TorchInductor); clear them", &setup_cache},
      {"update", "Fetch and verify the newest signed knowledge bundle (pins, failures, profiles); --check changes nothing", &setup_update},
      {"version", "Show zcuda's version and the knowledge bundle in use", &setup_version},
      {"report", "Write what a bug report needs (redacted); merge reports into a compatibility matrix", &setup_report},
  };
  return table;
}

Status require_home(const Context& context) {
  if (context.home_usable) return {};
  return fail(ErrorKind::io, "The zcuda home folder " + path_to_utf8(context.home.root) + " could not be created",
              "Pass --home DIR or set ZCUDA_HOME to a folder you can write.");
}

}  // namespace zcuda::cli
