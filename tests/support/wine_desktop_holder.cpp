// Keeps Wine's desktop open for a whole test run (scripts/test-windows.sh starts it, with no
// handles to inherit, before the tests). Wine closes its desktop, and ends the explorer.exe that
// runs it, about a second after the last program using it exits; the next program that needs it
// (zcuda detect does, through DXGI) starts a new explorer.exe, which inherits that program's
// standard handles. When the program is one a test started with pipes, the test waits for an end
// of output that never comes. A window of our own keeps the desktop in use, so that never happens.
// Windows itself has no such behaviour; this program is for Wine only.
#include <windows.h>

int main() {
  if (CreateWindowExW(0, L"STATIC", L"zcuda test desktop holder", 0, 0, 0, 0, 0, HWND_MESSAGE, nullptr, nullptr, nullptr) == nullptr) {
    return 1;
  }
  Sleep(INFINITE);
}
