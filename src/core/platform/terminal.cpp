#include <zcuda/platform/terminal.hpp>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdlib>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace zcuda::platform {

#ifdef _WIN32
namespace {
UINT g_console_output_cp = 0;
void restore_console_output_cp() { SetConsoleOutputCP(g_console_output_cp); }
}  // namespace

void prepare_stdio() {
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  // A console shows the bytes in its output code page: make it UTF-8 while zcuda runs, and give
  // the terminal its own back at exit.
  DWORD mode = 0;
  const bool console = GetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), &mode) || GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode);
  if (console && GetConsoleOutputCP() != CP_UTF8) {
    g_console_output_cp = GetConsoleOutputCP();
    SetConsoleOutputCP(CP_UTF8);
    std::atexit(restore_console_output_cp);
  }
}

bool is_terminal(std::FILE* stream) {
  int fd = _fileno(stream);
  if (!_isatty(fd)) return false;
  HANDLE handle = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  DWORD mode = 0;
  if (!GetConsoleMode(handle, &mode)) return false;
  SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
  return true;
}

int terminal_width(std::FILE* stream) {
  CONSOLE_SCREEN_BUFFER_INFO info;
  HANDLE handle = reinterpret_cast<HANDLE>(_get_osfhandle(_fileno(stream)));
  if (GetConsoleScreenBufferInfo(handle, &info)) return info.srWindow.Right - info.srWindow.Left + 1;
  return 80;
}
#else
void prepare_stdio() {}

bool is_terminal(std::FILE* stream) { return isatty(fileno(stream)) == 1; }

int terminal_width(std::FILE* stream) {
  winsize size{};
  if (ioctl(fileno(stream), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}
#endif

}  // namespace zcuda::platform
