#include "support/run_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace zcuda::test {

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(in_pipe) != 0) throw std::runtime_error("pipe failed");
  int terminal = -1, terminal_child = -1;
  if (options.terminal_stream == 1 || options.terminal_stream == 2) {
    terminal = posix_openpt(O_RDWR | O_NOCTTY);
    if (terminal < 0 || grantpt(terminal) != 0 || unlockpt(terminal) != 0) throw std::runtime_error("no pseudo-terminal");
    terminal_child = open(ptsname(terminal), O_RDWR | O_NOCTTY);
    if (terminal_child < 0) throw std::runtime_error("cannot open the pseudo-terminal");
  }
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (terminal_child >= 0) {
      dup2(terminal_child, options.terminal_stream);
      close(terminal_child);
      close(terminal);
    }
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1]}) close(fd);
    for (const auto& name : options.unset_env) unsetenv(name.c_str());
    for (const auto& [key, value] : options.set_env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (options.stdin_text) {
    const std::string& text = *options.stdin_text;
    ssize_t ignored = write(in_pipe[1], text.data(), text.size());
    (void)ignored;
  }
  close(in_pipe[1]);

  CommandResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  if (terminal >= 0) {
    // The stream reads from the terminal instead; its pipe is never written.
    close(terminal_child);
    auto& slot = fds[options.terminal_stream - 1].fd;
    close(slot);
    slot = terminal;
  }
  int open_fds = 2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  bool timed_out = false;
  while (open_fds > 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
    if (poll(fds, 2, 200) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[65536];
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) throw std::runtime_error("command timed out: " + argv[0]);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const BackgroundOptions& options) : options_(options) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (options_.out) dup2(::open(options_.out->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 1);
    if (options_.err) dup2(::open(options_.err->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 2);
    for (const auto& [key, value] : options_.set_env) setenv(key.c_str(), value.c_str(), 1);
    execvp(args[0], args.data());
    _exit(127);
  }
  pid_ = pid;
}

BackgroundProcess::~BackgroundProcess() {
  if (!waited_) {
    ::kill(static_cast<pid_t>(pid_), SIGKILL);
    wait();
  }
}

void BackgroundProcess::kill(int signal) { ::kill(static_cast<pid_t>(pid_), signal); }
void BackgroundProcess::interrupt() { kill(SIGINT); }
bool BackgroundProcess::can_interrupt() { return true; }

int BackgroundProcess::wait() {
  if (waited_) return status_;
  int status = 0;
  waitpid(static_cast<pid_t>(pid_), &status, 0);
  waited_ = true;
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return status_;
}

}  // namespace zcuda::test
