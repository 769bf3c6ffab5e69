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

// A program started without waiting for it (its output goes to the test's own streams).
class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& argv);
  ~BackgroundProcess();  // kills it if still running
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // POSIX: sends the signal. Windows: `signal` is ignored and the process is terminated at
  // once (TerminateProcess), as Task Manager's End task does.
  void kill(int signal);
  // Waits for it to end; its exit status (128+N for a signal N on POSIX).
  int wait();

 private:
  long long handle_ = -1;  // pid, or a process HANDLE
  bool waited_ = false;
  int status_ = -1;
};

}  // namespace zcuda::test
