#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zcuda::test {

struct CommandResult {
  int exit_code = -1;   // the process's exit status, or 128+signal
  std::string out;      // stdout
  std::string err;      // stderr
};

struct CommandOptions {
  std::map<std::string, std::string> set_env;   // added or replaced
  std::vector<std::string> unset_env;
  std::optional<std::string> stdin_text;
  int timeout_seconds = 120;
};

// Runs a program with arguments (no shell), capturing both streams.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// Runs the zcuda binary built with the tests. NO_COLOR is set unless the test overrides it.
CommandResult run_zcuda(const std::vector<std::string>& args, CommandOptions options = {});

}  // namespace zcuda::test
