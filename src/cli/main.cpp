// zcuda: parse the command line, run one subcommand, turn its result or error into output and
// an exit code. Everything else lives in the core library.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/logbook/logbook.hpp>
#include <zcuda/base/error_json.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/terminal.hpp>
#include <zcuda/ui/notice.hpp>

#include "command.hpp"

namespace {

using namespace zcuda;

logbook::Verbosity verbosity_of(const cli::GlobalOptions& options) {
  if (options.quiet) return logbook::Verbosity::quiet;
  if (options.verbose >= 2) return logbook::Verbosity::debug;
  if (options.verbose == 1) return logbook::Verbosity::verbose;
  return logbook::Verbosity::normal;
}

ui::ColorMode color_mode(const std::string& value) {
  if (value == "always") return ui::ColorMode::always;
  if (value == "never") return ui::ColorMode::never;
  return ui::ColorMode::automatic;
}

// Every error, usage errors included, in one form: with --json the error object on stdout,
// otherwise error, note and hint lines on stderr.
void print_error(const cli::Context& context, const char* command, const Error& error) {
  if (context.options.json) {
    nlohmann::json out = {{"schema", cli::kJsonSchema},
                          {"command", command != nullptr ? nlohmann::json(command) : nlohmann::json(nullptr)},
                          {"ok", false},
                          {"error", error}};
    std::fputs((json_text(out) + "\n").c_str(), stdout);
    return;
  }
  context.notices.print(error);
}

void print_output(const cli::Context& context, const char* command, cli::CommandOutput& output) {
  if (context.options.json) {
    nlohmann::json out = nlohmann::json::object();
    out["schema"] = cli::kJsonSchema;
    out["command"] = command;
    out["ok"] = output.exit_code == 0;
    for (auto& [key, value] : output.json.items()) {
      if (key != "schema" && key != "command" && key != "ok") out[key] = std::move(value);
    }
    std::fputs((json_text(out) + "\n").c_str(), stdout);
    return;
  }
  if (context.options.quiet && output.exit_code == 0) return;
  std::fputs(output.text.c_str(), stdout);
}

// Whether --json was asked for, from the arguments as given: a usage error can stop CLI11 before
// it sets the flag. Stops at "--" and at the program `zcuda run` starts: its arguments are its own.
bool json_requested(const std::vector<std::string>& arguments) {
  bool in_run = false;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "--") break;
    if (a == "--json") return true;
    if (in_run && !a.starts_with("-")) break;
    if (a == "run") in_run = true;
  }
  return false;
}

Error usage_error(const CLI::ParseError& e, const CLI::App& app, const char* command) {
  std::string message = e.what();
  // CLI11 reports a mistyped command as a missing one.
  if (const auto rest = app.remaining(); command == nullptr && !rest.empty() && !rest.front().starts_with("-")) {
    message = fmt::format("'{}' is not a zcuda command", rest.front());
  }
  return Error{ErrorKind::usage,
               message,
               command != nullptr ? fmt::format("Run 'zcuda {} --help' for its options.", command)
                                  : std::string("Run 'zcuda --help' for the commands and options."),
               {}};
}

// The command the arguments name, as CLI11 will find it: the first argument that is neither an
// option nor the value of a global option that takes one. Nothing for "--", for no command and for
// a word that is not a command.
const char* named_command(const std::vector<std::string>& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "--") return nullptr;
    if (a == "--home" || a == "--color") {
      ++i;
      continue;
    }
    if (a.starts_with("-")) continue;
    for (const auto& spec : cli::commands()) {
      if (a == spec.name) return spec.name;
    }
    return nullptr;
  }
  return nullptr;
}

// Parses and runs one command. Only `only`'s options are built when it is given: building all
// fourteen commands' options cost a tenth of a launch (issue 38). Returns nothing when CLI11 chose
// another command than `only`, so the caller builds them all and parses again.
std::optional<int> run_command(const std::vector<std::string>& arguments, const char* only) {
  cli::Context context;
  CLI::App app{"zcuda: run CUDA-built programs on AMD Radeon GPUs through ZLUDA, and prove what works."};
  app.name("zcuda");
  // Runs while parsing, before option callbacks: --home is read from its raw result.
  app.set_version_flag("--version", [&app] {
    const CLI::Option* home = app.get_option("--home");
    return cli::version_line(home->count() > 0 ? std::optional(path_from_utf8(home->results().front())) : std::nullopt);
  });
  app.require_subcommand(1);
  // "/path" is a path on every platform, not an option (CLI11 reads "/x" as one on Windows).
  app.allow_windows_style_options(false);
  app.footer("Run 'zcuda COMMAND --help' for a command's options. Exit codes: docs/cli.md.");

  auto& options = context.options;
  app.add_flag("--json", options.json, "Print machine-readable JSON on stdout");
  app.add_flag("-v,--verbose", options.verbose, "Show more detail on stderr (repeat for debug)");
  app.add_flag("-q,--quiet", options.quiet, "Show only errors");
  cli::add_path_option(app, "--home", options.home, "Folder for everything zcuda writes (default: per OS; env ZCUDA_HOME)")->type_name("DIR");
  app.add_option("--color", options.color, "Colour: auto, always or never (NO_COLOR is honoured)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");

  struct Registered {
    CLI::App* sub;
    cli::CommandRun run;
    const char* name;
  };
  std::vector<Registered> registered;
  for (const auto& spec : cli::commands()) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.summary);
    sub->fallthrough();  // global options may follow the command name
    const bool built = only == nullptr || std::string_view(only) == spec.name;
    registered.push_back({sub, built ? spec.setup(*sub) : cli::CommandRun{}, spec.name});
  }

  std::vector<const char*> argument_pointers;
  for (const auto& a : arguments) argument_pointers.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argument_pointers.size()), argument_pointers.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    const char* command = nullptr;
    for (const auto& r : registered) {
      if (r.sub->parsed()) command = r.name;
    }
    if (command != nullptr && only != nullptr && std::string_view(command) != only) return std::nullopt;
    options.json = options.json || json_requested(arguments);
    context.notices = ui::Notices::for_stderr(color_mode(options.color));
    print_error(context, command, usage_error(e, app, command));
    return exit_code(ErrorKind::usage);
  }

  context.style = ui::Style::for_stream(stdout, color_mode(options.color));
  context.notices = ui::Notices::for_stderr(color_mode(options.color));
  const auto verbosity = verbosity_of(options);
  logbook::init_console_logging(verbosity);

  const Registered* chosen = nullptr;
  for (const auto& r : registered) {
    if (r.sub->parsed()) chosen = &r;
  }
  if (chosen == nullptr) return exit_code(ErrorKind::usage);
  if (!chosen->run) return std::nullopt;

  auto home = home::resolve_home(options.home);
  if (!home) {
    print_error(context, chosen->name, home.error());
    return exit_code(home.error().kind);
  }
  context.home = *home;
  knowledge::set_folder(context.home.root / "knowledge");  // only the path: knowledge loads on first use
  if (auto created = home::create_home_folders(context.home); created) {
    context.home_usable = true;
    if (auto log = logbook::init_logging(context.home.logs, verbosity); !log) {
      spdlog::warn("{}", log.error().message);
    }
  } else {
    spdlog::warn("{} (continuing without a log file)", created.error().message);
  }

  std::string command_line;
  for (const auto& a : arguments) command_line += (command_line.empty() ? "" : " ") + a;
  spdlog::debug("zcuda {} ({}); home {} (chosen by {})", version(), build_info(), context.home.root, home::to_string(context.home.chosen_by));
  spdlog::debug("command line: {}", command_line);

  const auto started = std::chrono::steady_clock::now();
  auto result = chosen->run(context);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  int code = 0;
  if (result) {
    print_output(context, chosen->name, *result);
    code = result->exit_code;
  } else {
    spdlog::debug("{} failed: {} ({})", chosen->name, result.error().message, to_string(result.error().kind));
    print_error(context, chosen->name, result.error());
    code = exit_code(result.error().kind);
  }
  spdlog::debug("{} finished in {:.3f} s with exit code {}", chosen->name, seconds, code);
  spdlog::shutdown();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // `zcuda --version` alone answers before the command tree is built: a version check costs
  // about a process start (issue 17). The text is the one --version gives anywhere else.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::fputs((cli::version_line(std::nullopt) + "\n").c_str(), stdout);
    return 0;
  }
  platform::prepare_stdio();
  const std::vector<std::string> arguments = platform::command_line_arguments(argc, argv);
  if (const char* only = named_command(arguments)) {
    if (auto code = run_command(arguments, only)) return *code;
  }
  return *run_command(arguments, nullptr);
}
