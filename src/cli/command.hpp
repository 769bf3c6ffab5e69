#pragma once
// The contract between main and each subcommand: a subcommand file registers its options on a
// CLI11 sub-app and returns the function that runs it once parsing succeeded.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <zcuda/app/home.hpp>
#include <zcuda/core/error.hpp>
#include <zcuda/ui/style.hpp>

namespace zcuda::cli {

inline constexpr int kJsonSchema = 1;

struct GlobalOptions {
  bool json = false;
  int verbose = 0;
  bool quiet = false;
  std::optional<std::filesystem::path> home;
  std::string color = "auto";
};

struct Context {
  GlobalOptions options;
  app::Home home;
  bool home_usable = false;  // false when its folders could not be created
  ui::Style style = ui::Style::plain();
};

// What a command produced. `json` is printed with --json, `text` otherwise; `exit_code` lets
// a command that ran report a negative outcome (verify failures, detect --strict).
struct CommandOutput {
  nlohmann::json json = nlohmann::json::object();
  std::string text;
  int exit_code = 0;
};

using CommandRun = std::function<Result<CommandOutput>(Context&)>;

struct CommandSpec {
  const char* name;
  const char* summary;
  CommandRun (*setup)(CLI::App& sub);
};

const std::vector<CommandSpec>& commands();

// Fails with ErrorKind::environment when home could not be created; for commands that write.
Status require_home(const Context& context);

}  // namespace zcuda::cli
