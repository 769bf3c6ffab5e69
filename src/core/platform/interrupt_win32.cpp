#include <zcuda/platform/interrupt.hpp>

#include <windows.h>

namespace zcuda::platform {

namespace {

std::atomic<bool> g_interrupted{false};

BOOL WINAPI on_console_event(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
      // A second Ctrl-C falls through to the default handler, which ends the process.
      if (g_interrupted.load()) return FALSE;
      g_interrupted.store(true);
      return TRUE;
    default:
      return FALSE;
  }
}

}  // namespace

const std::atomic<bool>& interrupt_flag() {
  static const bool installed = SetConsoleCtrlHandler(on_console_event, TRUE) != 0;
  (void)installed;
  return g_interrupted;
}

}  // namespace zcuda::platform
