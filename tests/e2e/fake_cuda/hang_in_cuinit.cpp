// A CUDA driver library whose cuInit never returns and leaves a child process behind, as a hung
// driver might: verify must report "timeout" and kill the whole process tree. The child's pid
// goes to $ZCUDA_TEST_PIDFILE so the test can see it was killed. (Windows: the child is the
// program named by $ZCUDA_TEST_SLEEPER, the test child, told to sleep.)
#include <cstdio>
#include <cstdlib>
#include <string>

#ifdef _WIN32
#include <windows.h>
#define ZCUDA_EXPORT extern "C" __declspec(dllexport)
#else
#include <unistd.h>
#define ZCUDA_EXPORT extern "C" __attribute__((visibility("default")))
#endif

namespace {
void record(long pid) {
  if (const char* file = std::getenv("ZCUDA_TEST_PIDFILE")) {
    if (FILE* f = std::fopen(file, "w")) {
      std::fprintf(f, "%ld\n", pid);
      std::fclose(f);
    }
  }
}
}  // namespace

ZCUDA_EXPORT int cuInit(unsigned) {
#ifdef _WIN32
  wchar_t sleeper[32768];
  if (GetEnvironmentVariableW(L"ZCUDA_TEST_SLEEPER", sleeper, 32768) > 0) {
    std::wstring line = L"\"" + std::wstring(sleeper) + L"\" sleep 600000";
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION info{};
    if (CreateProcessW(nullptr, line.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup, &info)) {
      record(static_cast<long>(info.dwProcessId));
      CloseHandle(info.hThread);
      CloseHandle(info.hProcess);
    }
  }
  for (;;) Sleep(INFINITE);
#else
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  record(static_cast<long>(child));
  for (;;) pause();
#endif
}
