#include <zcuda/platform/process.hpp>

#include <windows.h>

#include <zcuda/platform/utf8.hpp>

#include "utf8_win32.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

namespace zcuda::platform {

namespace {

using win32::narrow;
using win32::widen;

using Clock = std::chrono::steady_clock;

struct Handle {
  HANDLE h = nullptr;
  ~Handle() {
    if (h != nullptr && h != INVALID_HANDLE_VALUE) CloseHandle(h);
  }
  void reset() {
    if (h != nullptr && h != INVALID_HANDLE_VALUE) CloseHandle(h);
    h = nullptr;
  }
};

void drain(HANDLE pipe, std::string* target, std::size_t limit) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(pipe, buffer, sizeof buffer, &n, nullptr) && n > 0) {
    if (target->size() < limit) target->append(buffer, std::min<std::size_t>(n, limit - target->size()));
  }
}

// winerror.h's ERROR_ELEVATION_REQUIRED, which MinGW's headers lack: the program's manifest asks
// for administrator rights.
constexpr DWORD kElevationRequired = 740;

// Ctrl-C in the console reaches every process attached to it, the child included; zcuda itself
// must not die of it while the child decides what to do.
BOOL WINAPI ignore_ctrl(DWORD type) { return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT; }

}  // namespace

Environment current_environment() {
  Environment env;
  wchar_t* block = GetEnvironmentStringsW();
  if (block == nullptr) return env;
  for (const wchar_t* p = block; *p != L'\0'; p += wcslen(p) + 1) {
    std::wstring_view entry(p);
    // Entries like "=C:=C:\\dir" hold per-drive current directories; keep them out.
    auto eq = entry.find(L'=', 1);
    if (entry.empty() || entry[0] == L'=' || eq == std::wstring_view::npos) continue;
    env.emplace(narrow(entry.substr(0, eq)), narrow(entry.substr(eq + 1)));
  }
  FreeEnvironmentStringsW(block);
  return env;
}

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  // The command line is built in UTF-8 (the arguments are) and widened once for CreateProcessW.
  std::string program = path_to_utf8(spec.program);
  std::wstring command_line = widen(windows_command_line(program, spec.args));

  std::wstring env_block;
  if (spec.environment) {
    // Windows wants the block sorted case-insensitively; std::map sorts case-sensitively, which
    // CreateProcess accepts but is documented as required for some lookups, so sort properly.
    std::vector<std::wstring> entries;
    for (const auto& [key, value] : *spec.environment) entries.push_back(widen(key) + L"=" + widen(value));
    std::sort(entries.begin(), entries.end(), [](const std::wstring& a, const std::wstring& b) {
      return CompareStringOrdinal(a.c_str(), -1, b.c_str(), -1, TRUE) == CSTR_LESS_THAN;
    });
    for (const auto& e : entries) {
      env_block += e;
      env_block.push_back(L'\0');
    }
    env_block.push_back(L'\0');
  }

  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  Handle out_read, out_write, err_read, err_write, null_in;
  const bool capture = spec.streams == StreamMode::capture;
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  if (capture) {
    if (!CreatePipe(&out_read.h, &out_write.h, &inheritable, 0) || !CreatePipe(&err_read.h, &err_write.h, &inheritable, 0)) {
      return fail(ErrorKind::internal, "Could not create a pipe");
    }
    SetHandleInformation(out_read.h, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(err_read.h, HANDLE_FLAG_INHERIT, 0);
    null_in.h = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable, OPEN_EXISTING, 0, nullptr);
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = null_in.h;
    startup.hStdOutput = out_write.h;
    startup.hStdError = err_write.h;
  }

  // A job object ties the whole tree to zcuda: closing it (also when zcuda dies) kills them all.
  Handle job;
  job.h = CreateJobObjectW(nullptr, nullptr);
  if (job.h != nullptr) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    SetInformationJobObject(job.h, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  }

  std::wstring cwd = spec.working_dir ? spec.working_dir->wstring() : std::wstring();
  PROCESS_INFORMATION info{};
  const auto started = Clock::now();
  DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
  if (!CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, capture ? TRUE : FALSE, flags,
                      spec.environment ? env_block.data() : nullptr, cwd.empty() ? nullptr : cwd.c_str(), &startup, &info)) {
    DWORD code = GetLastError();
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
      return fail(ErrorKind::not_found, fmt::format("{} was not found", program), "Check the program's path, or that it is on PATH.");
    }
    return fail(ErrorKind::environment, fmt::format("Could not start {}: {}", program, win32::error_text(code)),
                code == kElevationRequired ? "The program needs administrator rights: run zcuda from an elevated terminal." : "");
  }
  Handle process, thread;
  process.h = info.hProcess;
  thread.h = info.hThread;
  if (job.h != nullptr) AssignProcessToJobObject(job.h, process.h);
  ResumeThread(thread.h);
  out_write.reset();
  err_write.reset();

  if (!capture) SetConsoleCtrlHandler(ignore_ctrl, TRUE);
  ProcessResult result;
  std::thread out_reader, err_reader;
  if (capture) {
    out_reader = std::thread(drain, out_read.h, &result.out, spec.capture_limit);
    err_reader = std::thread(drain, err_read.h, &result.err, spec.capture_limit);
  }
  DWORD wait_ms = spec.timeout ? static_cast<DWORD>(spec.timeout->count()) : INFINITE;
  if (WaitForSingleObject(process.h, wait_ms) == WAIT_TIMEOUT) {
    result.timed_out = true;
    if (job.h != nullptr) TerminateJobObject(job.h, 1); else TerminateProcess(process.h, 1);
    WaitForSingleObject(process.h, INFINITE);
  }
  // Grandchildren may still hold the pipes: end the job so the readers see end-of-file.
  if (capture && job.h != nullptr) TerminateJobObject(job.h, 1);
  if (out_reader.joinable()) out_reader.join();
  if (err_reader.joinable()) err_reader.join();
  if (!capture) SetConsoleCtrlHandler(ignore_ctrl, FALSE);

  DWORD code = 0;
  GetExitCodeProcess(process.h, &code);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.exit_code = static_cast<int>(code);
  // NTSTATUS error codes (0xC...) mean the process died of an exception, not by calling exit().
  if (!result.timed_out && (code & 0xF0000000u) == 0xC0000000u) result.exception_status = code;
  return result;
}

}  // namespace zcuda::platform
