#pragma once
// Child processes: spawn with an exact argument vector and environment, capture or inherit the
// standard streams, enforce a timeout by killing the whole process tree, report how it ended.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::platform {

using Environment = std::map<std::string, std::string>;

enum class StreamMode {
  inherit,  // the child shares zcuda's terminal (zcuda run)
  capture,  // stdout and stderr are collected; stdin is empty (verify's probes)
  tee,      // as capture, and also copied to zcuda's own stdout and stderr as they arrive
};

struct ProcessSpec {
  std::filesystem::path program;  // a path, or a bare name searched on PATH
  std::vector<std::string> args;  // after the program name, passed exactly
  std::optional<std::filesystem::path> working_dir;
  std::optional<Environment> environment;  // the child's whole environment; unset = inherit
  StreamMode streams = StreamMode::inherit;
  std::optional<std::chrono::milliseconds> timeout;  // past it the whole tree is killed
  std::size_t capture_limit = 16u << 20;             // bytes kept per captured stream
  // Captured modes: when this becomes true (Ctrl-C seen by zcuda) the whole tree is killed.
  const std::atomic<bool>* cancel = nullptr;
  // Windows: the arguments are joined with single spaces as given, unquoted, because cmd.exe's
  // /c reads its own command line by its own rules. Ignored elsewhere.
  bool windows_verbatim = false;
  // StreamMode::inherit: when non-zero, the child's stderr goes through a pipe instead, is passed
  // on to zcuda's stderr as it arrives, and its last `stderr_tail` bytes are kept in
  // ProcessResult::err_tail (run explains a failure from them). stdin and stdout stay shared.
  std::size_t stderr_tail = 0;
};

struct ProcessResult {
  int exit_code = 0;                              // the child's exit code; on POSIX 128+N when killed by signal N
  std::optional<int> signal;                      // POSIX: the terminating signal
  std::optional<std::uint32_t> exception_status;  // Windows: an NTSTATUS crash code (0xC0000005 ...)
  bool timed_out = false;
  bool cancelled = false;  // killed because `cancel` became true
  std::string out;
  std::string err;
  std::string err_tail;  // ProcessSpec::stderr_tail: the last bytes of stderr
  double seconds = 0;
};

// Appends `data` to `tail`, keeping only its last `limit` bytes.
void append_tail(std::string& tail, std::string_view data, std::size_t limit);

// Runs the program to completion. Errors only when it could not be started (not found, not
// executable); a crash or a non-zero exit is a result, not an error.
// With StreamMode::inherit, Ctrl-C reaches the child as it would without zcuda, zcuda waits for
// it, and the child is killed if zcuda dies (Linux: parent-death signal; Windows: a job object).
Result<ProcessResult> run_process(const ProcessSpec& spec);

// The current process's environment.
Environment current_environment();

// The key under which `env` holds the variable `name`, if it holds it. Windows matches variable
// names without regard to case, and its environment usually spells PATH "Path".
std::optional<std::string> variable_key(const Environment& env, std::string_view name, Os os);

// Windows command-line quoting (the rules CommandLineToArgvW and the MSVC runtime apply), so
// that each argument arrives in the child exactly as given. Pure: testable on every platform.
std::string quote_windows_argument(std::string_view arg);
std::string windows_command_line(std::string_view program, const std::vector<std::string>& args);

// The platform shell running `command`: /bin/sh -c on POSIX, cmd.exe /d /s /c on Windows.
ProcessSpec shell_command(const std::string& command);

// Human description of how a process ended: "exit code 3", "killed by signal 11 (SIGSEGV)",
// "crashed with exception 0xC0000005 (access violation)", "timed out".
std::string describe_exit(const ProcessResult& result);

// What a Windows exit status (an NTSTATUS) means in words, for describe_exit and for explain's
// loader-dialog entries alike: "access violation", "a DLL the program needs was not found".
std::string_view exit_status_meaning(std::uint32_t status);

}  // namespace zcuda::platform
