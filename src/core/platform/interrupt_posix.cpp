#include <zcuda/platform/interrupt.hpp>

#include <csignal>

namespace zcuda::platform {

namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_interrupt(int signal_number) {
  if (g_interrupted.load()) {
    // Second Ctrl-C: the user insists; stop now with the default action.
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return;
  }
  g_interrupted.store(true);
}

}  // namespace

const std::atomic<bool>& interrupt_flag() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    // Restart interrupted system calls: file I/O in the standard library does not retry EINTR.
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
  return g_interrupted;
}

}  // namespace zcuda::platform
