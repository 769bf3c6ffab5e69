#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zcuda::test {

struct CommandResult {
  int exit_code = -1;  // the process's exit status, or 128+signal
  std::string out;     // stdout
  std::string err;     // stderr
};

struct CommandOptions {
  std::map<std::string, std::string> set_env;  // added or replaced
  std::vector<std::string> unset_env;
  std::optional<std::string> stdin_text;
  int timeout_seconds = 120;
  // POSIX only: 1 or 2 puts stdout or stderr on a pseudo-terminal instead of a pipe (its output
  // still lands in `out` or `err`, with the terminal's "\r\n" line ends).
  int terminal_stream = 0;
};

// Runs a program with arguments (no shell), capturing both streams.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// Runs the zcuda binary built with the tests. NO_COLOR is set unless the test overrides it.
CommandResult run_zcuda(const std::vector<std::string>& args, CommandOptions options = {});

// Waits until `file` exists (a child's "touch READY" signal); false after `seconds`.
bool wait_for_file(const std::filesystem::path& file, double seconds = 30);

// SIGKILL's number, for BackgroundProcess::kill (Windows has no signals; see there).
inline constexpr int kKillSignal = 9;

// A program started without waiting for it, for tests that act while it runs (kill it, start a
// second one). Its output goes to files when asked, else to the test's own streams.
struct BackgroundOptions {
  std::map<std::string, std::string> set_env;  // added or replaced
  std::optional<std::filesystem::path> out;    // stdout to this file
  std::optional<std::filesystem::path> err;    // stderr to this file
};

class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& argv, const BackgroundOptions& options = {});
  ~BackgroundProcess();  // kills it if still running
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  long pid() const { return pid_; }
  // POSIX: sends the signal. Windows: `signal` is ignored and the process is terminated at
  // once (TerminateProcess, exit status kKilledStatus), as Task Manager's End task does.
  void kill(int signal = kKillSignal);
  // As Ctrl-C at its terminal. POSIX: SIGINT. Windows: Ctrl-Break to its console process group
  // (Ctrl-C cannot be sent to one group alone); zcuda handles both alike.
  void interrupt();
  // Whether interrupt() can work here: Windows needs a console this test process shares with
  // the program (a terminal does; ctest under Wine, with pipes only, has none).
  static bool can_interrupt();
  // Waits for it to end; its exit status (128+N for a signal N on POSIX).
  int wait();

  // What it wrote to the files of BackgroundOptions so far.
  std::string out() const;
  std::string err() const;
  // Waits until its stderr / stdout holds `text`; false after `seconds`. A program's own words
  // that it is ready, instead of a sleep that guesses when it will be.
  bool wait_for_err(const std::string& text, double seconds = 30) const;
  bool wait_for_out(const std::string& text, double seconds = 30) const;

 private:
  BackgroundOptions options_;
  long pid_ = -1;
  long long handle_ = -1;  // the process HANDLE on Windows
  bool waited_ = false;
  int status_ = -1;
};

// The exit status of a process ended by BackgroundProcess::kill().
#ifdef _WIN32
inline constexpr int kKilledStatus = 1;
#else
inline constexpr int kKilledStatus = 128 + kKillSignal;
#endif

}  // namespace zcuda::test
