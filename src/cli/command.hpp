#pragma once
// The contract between main and each subcommand: a subcommand file registers its options on a
// CLI11 sub-app and returns the function that runs it once parsing succeeded.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/ui/notice.hpp>
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
  home::Home home;
  bool home_usable = false;              // false when its folders could not be created
  ui::Style style = ui::Style::plain();  // for the command's output on stdout
  ui::Notices notices;                   // zcuda's messages on stderr, in stderr's own colour
};

// What a command produced. `json` is printed with --json (main adds `schema`, `command` and
// `ok`, true when the exit code is 0), `text` otherwise; `exit_code` lets a command that ran
// report a negative outcome (verify failures, detect --strict).
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

// What --version prints: zcuda's version and build, and the knowledge bundle's version (the
// compiled-in constant, or the installed pointer's: one small read, nothing verified).
std::string version_line(const std::optional<std::filesystem::path>& home_flag);

// Fails with ErrorKind::environment when home could not be created; for commands that write.
Status require_home(const Context& context);

// A path option or positional. Command-line text is UTF-8 on every platform (main reads Windows'
// wide command line); CLI11 would make a path of it through the platform's narrow encoding, which
// on Windows is not UTF-8.
inline CLI::Option* add_path_option(CLI::App& app, const std::string& name, std::filesystem::path& target, const std::string& description) {
  return app.add_option_function<std::string>(
      name, [&target](const std::string& text) { target = path_from_utf8(text); }, description);
}
inline CLI::Option* add_path_option(CLI::App& app, const std::string& name, std::optional<std::filesystem::path>& target,
                                    const std::string& description) {
  return app.add_option_function<std::string>(
      name, [&target](const std::string& text) { target = path_from_utf8(text); }, description);
}
// CLI::ExistingFile and CLI::ExistingDirectory, reading the text as UTF-8 (see add_path_option).
inline const CLI::Validator kExistingFile(
    [](std::string& text) -> std::string {
      std::error_code ec;
      const auto status = std::filesystem::status(path_from_utf8(text), ec);
      if (!std::filesystem::exists(status)) return "File does not exist: " + text;
      if (std::filesystem::is_directory(status)) return "File is actually a directory: " + text;
      return {};
    },
    "FILE");
inline const CLI::Validator kExistingDirectory(
    [](std::string& text) -> std::string {
      std::error_code ec;
      const auto status = std::filesystem::status(path_from_utf8(text), ec);
      if (!std::filesystem::exists(status)) return "Directory does not exist: " + text;
      if (!std::filesystem::is_directory(status)) return "Directory is actually a file: " + text;
      return {};
    },
    "DIR");

inline CLI::Option* add_path_option(CLI::App& app, const std::string& name, std::vector<std::filesystem::path>& target,
                                    const std::string& description) {
  return app.add_option_function<std::vector<std::string>>(
      name,
      [&target](const std::vector<std::string>& texts) {
        for (const auto& text : texts) target.push_back(path_from_utf8(text));
      },
      description);
}

}  // namespace zcuda::cli
