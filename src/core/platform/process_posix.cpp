#include <zcuda/platform/process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <optional>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>

extern char** environ;

namespace zcuda::platform {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int read = -1;
  int write = -1;
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  ~Pipe() {
    close_fd(read);
    close_fd(write);
  }
};

// While zcuda waits for a child that shares its terminal, Ctrl-C and Ctrl-\ are the child's to
// handle (as with system()); SIGTERM/SIGHUP sent to zcuda are passed on to the child.
volatile sig_atomic_t g_forward_pid = 0;
extern "C" void forward_signal(int sig) {
  if (g_forward_pid > 0) kill(g_forward_pid, sig);
}

class SignalGuard {
 public:
  explicit SignalGuard(bool active) : active_(active) {
    if (!active_) return;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int_);
    sigaction(SIGQUIT, &ignore, &old_quit_);
    struct sigaction forward {};
    forward.sa_handler = forward_signal;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGTERM, &forward, &old_term_);
    sigaction(SIGHUP, &forward, &old_hup_);
  }
  ~SignalGuard() {
    if (!active_) return;
    g_forward_pid = 0;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGQUIT, &old_quit_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGHUP, &old_hup_, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  bool active_;
  struct sigaction old_int_ {
  }, old_quit_{}, old_term_{}, old_hup_{};
};

[[noreturn]] void child_exec(const ProcessSpec& spec, const std::vector<char*>& argv, char** envp, int error_fd, int out_fd, int err_fd,
                             pid_t parent) {
  // Restore default signal dispositions the parent may have changed.
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (spec.streams != StreamMode::inherit) {
    // Its own process group, so a timeout can kill the whole tree; no terminal input.
    setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
  } else if (spec.stderr_tail > 0) {
    dup2(err_fd, 2);  // run's tee of stderr; stdin and stdout stay the terminal's
  }
  // Die with zcuda: if zcuda is killed, the child does not live on unsupervised.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  if (spec.working_dir && chdir(spec.working_dir->c_str()) != 0) {
    int e = errno;
    ssize_t ignored = write(error_fd, &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  if (envp != nullptr) environ = envp;
  execvp(argv[0], argv.data());
  int e = errno;
  ssize_t ignored = write(error_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

void append_limited(std::string& target, const char* data, std::size_t n, std::size_t limit) {
  if (target.size() >= limit) return;
  target.append(data, std::min(n, limit - target.size()));
}

// tee: the child's bytes go on to zcuda's own stream as they arrive (a closed one is ignored).
void pass_through(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t written = ::write(fd, data, n);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    data += written;
    n -= static_cast<std::size_t>(written);
  }
}

bool cancel_requested(const ProcessSpec& spec) { return spec.cancel != nullptr && spec.cancel->load(); }

}  // namespace

Environment current_environment() {
  Environment env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

// run_process's steps: the argument and environment arrays exec needs, the start (fork, exec,
// and exec's errno back through a close-on-exec pipe), reading the captured streams until they
// close (or the timeout or Ctrl-C ends it), waiting for the exit, and the exit status.
namespace {

// Strings with the char* arrays execvp and environ take, which point into them.
struct ExecArrays {
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::vector<std::string> env;
  std::vector<char*> envp;
};

void fill_exec_arrays(const ProcessSpec& spec, const std::string& program, ExecArrays& arrays) {
  arrays.args.reserve(spec.args.size() + 1);
  arrays.args.push_back(program);
  arrays.args.insert(arrays.args.end(), spec.args.begin(), spec.args.end());
  for (auto& a : arrays.args) arrays.argv.push_back(a.data());
  arrays.argv.push_back(nullptr);
  if (spec.environment) {
    for (const auto& [key, value] : *spec.environment) arrays.env.push_back(key + "=" + value);
    for (auto& e : arrays.env) arrays.envp.push_back(e.data());
    arrays.envp.push_back(nullptr);
  }
}

// After fork: the errno exec failed with, as an error, or nothing when the program runs.
Status exec_outcome(int error_read_fd, pid_t pid, const std::string& program) {
  int exec_errno = 0;
  if (read(error_read_fd, &exec_errno, sizeof exec_errno) != static_cast<ssize_t>(sizeof exec_errno)) return {};
  waitpid(pid, nullptr, 0);
  if (exec_errno == ENOENT) {
    return fail(ErrorKind::not_found, fmt::format("{} was not found", program), "Check the program's path, or that it is on PATH.");
  }
  return fail(ErrorKind::environment, fmt::format("Could not start {}: {}", program, std::strerror(exec_errno)),
              exec_errno == EACCES ? "Check that the file is executable (chmod +x)." : "");
}

// What ended the run early, if anything.
struct Ending {
  bool timed_out = false;
  bool cancelled = false;
};

// Reads the child's stdout and stderr until both close, or kills its group on timeout or Ctrl-C.
void read_streams(const ProcessSpec& spec, pid_t pid, int out_fd, int err_fd, Clock::time_point started, ProcessResult& result, Ending& ending) {
  const bool tee = spec.streams == StreamMode::tee;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_count = 2;
  // A grandchild that outlives the child may hold the pipes open for ever: once the child has
  // ended, what arrives within a moment is taken, then its group is ended (as Windows ends the
  // job), so the child's own output is never lost to a timeout.
  std::optional<Clock::time_point> child_ended;
  while (open_count > 0) {
    int wait_ms = 200;
    if (!child_ended) {
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) child_ended = Clock::now();
    } else if (Clock::now() - *child_ended > std::chrono::milliseconds(500)) {
      kill(-pid, SIGKILL);
      return;
    }
    if (cancel_requested(spec)) {
      kill(-pid, SIGKILL);
      ending.cancelled = true;
      return;
    }
    if (spec.timeout) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(started + *spec.timeout - Clock::now());
      if (left.count() <= 0) {
        kill(-pid, SIGKILL);
        ending.timed_out = true;
        return;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 200));
    }
    if (poll(fds, 2, wait_ms) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buffer[65536];
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        fds[i].fd = -1;
        --open_count;
      } else {
        append_limited(i == 0 ? result.out : result.err, buffer, static_cast<std::size_t>(n), spec.capture_limit);
        if (tee) pass_through(i == 0 ? STDOUT_FILENO : STDERR_FILENO, buffer, static_cast<std::size_t>(n));
      }
    }
  }
}

// Passes the child's stderr on as it arrives and keeps its tail (ProcessSpec::stderr_tail).
// After the child ended a grandchild may still hold the pipe: what arrives within a moment is
// taken, then zcuda stops reading. True when the child was reaped here (its status in `status`).
bool pass_stderr_keeping_tail(const ProcessSpec& spec, pid_t pid, int err_fd, ProcessResult& result, int& status) {
  bool reaped = false;
  pollfd fd{err_fd, POLLIN, 0};
  std::optional<Clock::time_point> ended;
  while (true) {
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      ended = Clock::now();
    }
    if (ended && Clock::now() - *ended > std::chrono::milliseconds(500)) break;
    const int ready = poll(&fd, 1, reaped ? 50 : 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) {
      if (reaped) break;
      continue;
    }
    char buffer[65536];
    const ssize_t n = read(fd.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: every writer is gone
    pass_through(STDERR_FILENO, buffer, static_cast<std::size_t>(n));
    append_tail(result.err_tail, std::string_view(buffer, static_cast<std::size_t>(n)), spec.stderr_tail);
  }
  return reaped;
}

// Waits for the child to exit; its wait status.
int wait_for_exit(const ProcessSpec& spec, pid_t pid, bool capture, Clock::time_point started, Ending& ending) {
  int status = 0;
  unsigned poll_us = 50;
  while (true) {
    // A child that closed its streams but runs on still answers to the timeout and to Ctrl-C.
    if (!ending.timed_out && !ending.cancelled && (spec.timeout || spec.cancel != nullptr)) {
      pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (done < 0 && errno != EINTR) break;
      if (cancel_requested(spec)) {
        kill(capture ? -pid : pid, SIGKILL);
        ending.cancelled = true;
        continue;
      }
      if (spec.timeout && Clock::now() >= started + *spec.timeout) {
        kill(capture ? -pid : pid, SIGKILL);
        ending.timed_out = true;
        continue;
      }
      // A child whose streams just closed is usually exiting: look again soon, then less often.
      usleep(poll_us);
      poll_us = std::min(poll_us * 2, 2000u);
      continue;
    }
    if (waitpid(pid, &status, 0) == pid) break;
    if (errno != EINTR) break;
  }
  return status;
}

void set_exit_status(int status, ProcessResult& result) {
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + WTERMSIG(status);
  }
}

}  // namespace

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  const std::string program = spec.program.string();  // POSIX: the file system's own bytes
  ExecArrays arrays;
  fill_exec_arrays(spec, program, arrays);

  Pipe error_pipe, out_pipe, err_pipe;
  if (!error_pipe.open()) return fail(ErrorKind::internal, "Could not create a pipe");
  const bool capture = spec.streams != StreamMode::inherit;
  if (capture && (!out_pipe.open() || !err_pipe.open())) return fail(ErrorKind::internal, "Could not create a pipe");
  const bool tail = !capture && spec.stderr_tail > 0;
  if (tail && !err_pipe.open()) return fail(ErrorKind::internal, "Could not create a pipe");

  SignalGuard guard(!capture);
  const auto started = Clock::now();
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return fail(ErrorKind::environment, fmt::format("Could not start {}: {}", program, std::strerror(errno)));
  if (pid == 0) {
    child_exec(spec, arrays.argv, spec.environment ? arrays.envp.data() : nullptr, error_pipe.write, out_pipe.write, err_pipe.write, parent);
  }
  if (capture) setpgid(pid, pid);  // also set here so a kill cannot race the child's own setpgid
  g_forward_pid = capture ? 0 : pid;

  Pipe::close_fd(error_pipe.write);
  Pipe::close_fd(out_pipe.write);
  Pipe::close_fd(err_pipe.write);
  if (auto started_ok = exec_outcome(error_pipe.read, pid, program); !started_ok) return std::unexpected(started_ok.error());

  ProcessResult result;
  Ending ending;
  if (capture) read_streams(spec, pid, out_pipe.read, err_pipe.read, started, result, ending);
  int status = 0;
  const bool reaped = tail && pass_stderr_keeping_tail(spec, pid, err_pipe.read, result, status);
  if (!reaped) status = wait_for_exit(spec, pid, capture, started, ending);
  // The tree of a captured child lives in its own group: make sure nothing of it survives.
  if (capture) kill(-pid, SIGKILL);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.timed_out = ending.timed_out;
  result.cancelled = ending.cancelled;
  set_exit_status(status, result);
  return result;
}

ProcessSpec shell_command(const std::string& command) {
  ProcessSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", command};
  return spec;
}

}  // namespace zcuda::platform
