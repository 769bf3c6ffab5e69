/* A stand-in for ZLUDA's zluda.exe: `fake_zluda [FLAGS] -- PROGRAM ARGS...` starts PROGRAM with a
 * command line it builds from its own arguments the way one launcher build does, waits for it and
 * exits with its exit code. FAKE_JOIN chooses: 0 quotes each argument, 1 joins with plain spaces
 * (v6-preview.69 and later), 2 puts a space after PROGRAM and nothing between the arguments (an
 * older build), 3 ends without starting anything. Of its own flags before "--" only --zluda-trace
 * does something: it writes a log where zluda_trace would, %TEMP%\zluda\<program file name>\log.txt
 * (or <name>_1, _2 ... when that folder exists). */
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

#ifndef FAKE_JOIN
#error FAKE_JOIN must be defined
#endif

static wchar_t line[32768];
static size_t used;

static void put(const wchar_t* text) {
  size_t n = wcslen(text);
  if (used + n + 1 >= sizeof line / sizeof line[0]) exit(90);
  wmemcpy(line + used, text, n);
  used += n;
  line[used] = 0;
}

static void put_char(wchar_t c) {
  wchar_t s[2] = {c, 0};
  put(s);
}

/* The MSVC runtime's rules, as zcuda's platform layer applies them. */
static void put_quoted(const wchar_t* arg) {
  if (*arg && !wcspbrk(arg, L" \t\n\v\"")) {
    put(arg);
    return;
  }
  put_char(L'"');
  size_t backslashes = 0;
  for (const wchar_t* p = arg; *p; ++p) {
    if (*p == L'\\') {
      ++backslashes;
      continue;
    }
    for (size_t i = 0; i < (*p == L'"' ? backslashes * 2 + 1 : backslashes); ++i) put_char(L'\\');
    backslashes = 0;
    put_char(*p);
  }
  for (size_t i = 0; i < backslashes * 2; ++i) put_char(L'\\');
  put_char(L'"');
}

/* As zluda_trace's create_trace_directory: the first of NAME, NAME_1, NAME_2 ... that does not exist. */
static void write_trace(const wchar_t* program) {
  wchar_t dir[MAX_PATH + 1], folder[2 * MAX_PATH], file[2 * MAX_PATH + 16];
  DWORD n = GetTempPathW(MAX_PATH + 1, dir);
  if (n == 0 || n > MAX_PATH) exit(91);
  wcscat(dir, L"zluda");
  CreateDirectoryW(dir, NULL);
  const wchar_t* name = program;
  for (const wchar_t* p = program; *p; ++p) {
    if (*p == L'\\' || *p == L'/') name = p + 1;
  }
  wchar_t base[MAX_PATH];
  swprintf(base, MAX_PATH, L"%ls", name);
  size_t len = wcslen(base);
  if (len && base[len - 1] == L'"') base[len - 1] = 0;
  swprintf(folder, 2 * MAX_PATH, L"%ls\\%ls", dir, base);
  for (int suffix = 1; GetFileAttributesW(folder) != INVALID_FILE_ATTRIBUTES; ++suffix) {
    swprintf(folder, 2 * MAX_PATH, L"%ls\\%ls_%d", dir, base, suffix);
  }
  if (!CreateDirectoryW(folder, NULL)) exit(92);
  swprintf(file, 2 * MAX_PATH + 16, L"%ls\\log.txt", folder);
  FILE* log = _wfopen(file, L"wb");
  if (!log) exit(93);
  fputs("zluda_trace stand-in: cuInit(0) ... CUDA_SUCCESS\n", log);
  fclose(log);
}

int wmain(int argc, wchar_t** argv) {
  int i = 1;
  while (i < argc && wcscmp(argv[i], L"--") != 0) ++i;
  if (i + 1 >= argc) {
    fputs("usage: zluda.exe [--zluda-trace] -- EXE [ARGS]...\n", stderr);
    return 2;
  }
  const wchar_t* program = argv[i + 1];
  for (int f = 1; f < i; ++f) {
    if (wcscmp(argv[f], L"--zluda-trace") == 0) write_trace(program);
  }
  if (FAKE_JOIN == 3) {
    fputs("fake zluda.exe: ends without starting the program\n", stderr);
    return 1;
  }
  if (FAKE_JOIN == 0) {
    if (*program && !wcspbrk(program, L" \t")) {
      put(program);
    } else {
      put_char(L'"');
      put(program);
      put_char(L'"');
    }
  } else {
    put(program);
  }
  if (FAKE_JOIN == 2 && i + 2 < argc) put_char(L' ');
  for (int a = i + 2; a < argc; ++a) {
    if (FAKE_JOIN == 0) {
      put_char(L' ');
      put_quoted(argv[a]);
    } else if (FAKE_JOIN == 1) {
      put_char(L' ');
      put(argv[a]);
    } else {
      put(argv[a]);
    }
  }
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  /* lpApplicationName NULL, as zluda.exe's DetourCreateProcessWithDllsW call has it. */
  if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
    fprintf(stderr, "DetourCreateProcessWithDllsW failed with error_code %lu\n", (unsigned long)GetLastError());
    return 1;
  }
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 1;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  return (int)code;
}
