#include <zcuda/platform/process.hpp>

#include <windows.h>

#include <zcuda/base/path_text.hpp>

#include "utf8_win32.hpp"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
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

// `echo`: tee mode's copy to zcuda's own stream (nullptr: none).
void drain(HANDLE pipe, std::string* target, std::size_t limit, HANDLE echo) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(pipe, buffer, sizeof buffer, &n, nullptr) && n > 0) {
    if (target->size() < limit) target->append(buffer, std::min<std::size_t>(n, limit - target->size()));
    if (echo != nullptr && echo != INVALID_HANDLE_VALUE) {
      DWORD written = 0;
      WriteFile(echo, buffer, n, &written, nullptr);
    }
  }
}

// ProcessSpec::stderr_tail: a reader thread passes the child's stderr on and keeps its tail. The
// state is shared so that a reader still blocked by a grandchild holding the pipe can be left
// behind (detached) once the child itself has ended.
struct TailReader {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::string tail;
  Handle pipe;
};

void read_tail(std::shared_ptr<TailReader> state, std::size_t limit, HANDLE echo) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(state->pipe.h, buffer, sizeof buffer, &n, nullptr) && n > 0) {
    if (echo != nullptr && echo != INVALID_HANDLE_VALUE) {
      DWORD written = 0;
      WriteFile(echo, buffer, n, &written, nullptr);
    }
    std::lock_guard lock(state->mutex);
    append_tail(state->tail, std::string_view(buffer, n), limit);
  }
  std::lock_guard lock(state->mutex);
  state->done = true;
  state->done_cv.notify_all();
}

// An inheritable copy of one of zcuda's standard handles, for a child given STARTF_USESTDHANDLES.
HANDLE inheritable_std_handle(DWORD which, Handle& copy) {
  HANDLE h = GetStdHandle(which);
  if (h == nullptr || h == INVALID_HANDLE_VALUE) return h;
  if (DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &copy.h, 0, TRUE, DUPLICATE_SAME_ACCESS)) return copy.h;
  return h;
}

// The command line: quoted per argument, or for cmd.exe joined as given (ProcessSpec::windows_verbatim).
std::string command_line_of(const std::string& program, const ProcessSpec& spec) {
  if (!spec.windows_verbatim) return windows_command_line(program, spec.args);
  std::string line = windows_command_line(program, {});
  for (const auto& a : spec.args) line += " " + a;
  return line;
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

namespace {

// run_process's steps: the environment block, the standard handles (pipes when capturing),
// the job object that ties the tree to zcuda, the start (suspended, put in the job, resumed),
// the wait in slices that sees the timeout and Ctrl-C, and the exit status.

std::wstring environment_block(const Environment& environment) {
  // Windows wants the block sorted case-insensitively; std::map sorts case-sensitively, which
  // CreateProcess accepts but is documented as required for some lookups, so sort properly.
  std::vector<std::wstring> entries;
  for (const auto& [key, value] : environment) entries.push_back(widen(key) + L"=" + widen(value));
  std::sort(entries.begin(), entries.end(),
            [](const std::wstring& a, const std::wstring& b) { return CompareStringOrdinal(a.c_str(), -1, b.c_str(), -1, TRUE) == CSTR_LESS_THAN; });
  std::wstring block;
  for (const auto& e : entries) {
    block += e;
    block.push_back(L'\0');
  }
  block.push_back(L'\0');
  return block;
}

// The child's stdin (NUL), stdout and stderr (pipes) when its output is captured.
struct StdHandles {
  Handle out_read, out_write, err_read, err_write, null_in;
};

Status capture_into(StdHandles& handles, STARTUPINFOW& startup) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  if (!CreatePipe(&handles.out_read.h, &handles.out_write.h, &inheritable, 0) ||
      !CreatePipe(&handles.err_read.h, &handles.err_write.h, &inheritable, 0)) {
    return fail(ErrorKind::internal, "Could not create a pipe");
  }
  SetHandleInformation(handles.out_read.h, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(handles.err_read.h, HANDLE_FLAG_INHERIT, 0);
  handles.null_in.h = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable, OPEN_EXISTING, 0, nullptr);
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = handles.null_in.h;
  startup.hStdOutput = handles.out_write.h;
  startup.hStdError = handles.err_write.h;
  return {};
}

// The child's stderr through a pipe that read_tail passes on and keeps the tail of; stdin and
// stdout stay the console's (inheritable copies of zcuda's own).
Status tail_stderr_into(StdHandles& handles, TailReader& tail, Handle& in_copy, Handle& out_copy, STARTUPINFOW& startup) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  if (!CreatePipe(&tail.pipe.h, &handles.err_write.h, &inheritable, 0)) return fail(ErrorKind::internal, "Could not create a pipe");
  SetHandleInformation(tail.pipe.h, HANDLE_FLAG_INHERIT, 0);
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = inheritable_std_handle(STD_INPUT_HANDLE, in_copy);
  startup.hStdOutput = inheritable_std_handle(STD_OUTPUT_HANDLE, out_copy);
  startup.hStdError = handles.err_write.h;
  return {};
}

// A job object ties the whole tree to zcuda: closing it (also when zcuda dies) kills them all.
// Null when Windows refuses one (the tree is then ended through the process alone).
HANDLE kill_on_close_job() {
  HANDLE job = CreateJobObjectW(nullptr, nullptr);
  if (job != nullptr) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  }
  return job;
}

Error start_error(const std::string& program, DWORD code) {
  if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
    return Error{ErrorKind::not_found, fmt::format("{} was not found", program), "Check the program's path, or that it is on PATH.", {}};
  }
  return Error{ErrorKind::environment,
               fmt::format("Could not start {}: {}", program, win32::error_text(code)),
               code == kElevationRequired ? "The program needs administrator rights: run zcuda from an elevated terminal." : "",
               {}};
}

// Waits for the process in slices, so that Ctrl-C (spec.cancel) is seen while it runs, and ends
// the tree on a timeout or Ctrl-C.
void wait_with_limits(const ProcessSpec& spec, HANDLE process, HANDLE job, Clock::time_point started, ProcessResult& result) {
  const auto kill_tree = [&] {
    if (job != nullptr)
      TerminateJobObject(job, 1);
    else
      TerminateProcess(process, 1);
    WaitForSingleObject(process, INFINITE);
  };
  while (true) {
    long long slice_ms = spec.cancel != nullptr ? 100 : -1;  // -1: no limit
    if (spec.timeout) {
      const long long left =
          std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(started + *spec.timeout - Clock::now()).count());
      slice_ms = slice_ms < 0 ? left : std::min(slice_ms, left);
    }
    const DWORD slice = slice_ms < 0 ? INFINITE : static_cast<DWORD>(slice_ms);
    if (WaitForSingleObject(process, slice) != WAIT_TIMEOUT) return;
    if (spec.cancel != nullptr && spec.cancel->load()) {
      result.cancelled = true;
      kill_tree();
      return;
    }
    if (spec.timeout && Clock::now() >= started + *spec.timeout) {
      result.timed_out = true;
      kill_tree();
      return;
    }
  }
}

}  // namespace

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  // The command line is built in UTF-8 (the arguments are) and widened once for CreateProcessW.
  const std::string program = path_to_utf8(spec.program);
  std::wstring command_line = widen(command_line_of(program, spec));
  std::wstring env_block = spec.environment ? environment_block(*spec.environment) : std::wstring();

  const bool capture = spec.streams != StreamMode::inherit;
  const bool tee = spec.streams == StreamMode::tee;
  StdHandles handles;
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  if (capture) {
    if (auto ready = capture_into(handles, startup); !ready) return std::unexpected(ready.error());
  }
  const bool tail = !capture && spec.stderr_tail > 0;
  auto tail_state = std::make_shared<TailReader>();
  Handle in_copy, out_copy;
  if (tail) {
    if (auto ready = tail_stderr_into(handles, *tail_state, in_copy, out_copy, startup); !ready) return std::unexpected(ready.error());
  }
  Handle job;
  job.h = kill_on_close_job();

  // Started suspended, so that it is in the job before it can start children of its own.
  std::wstring cwd = spec.working_dir ? spec.working_dir->wstring() : std::wstring();
  PROCESS_INFORMATION info{};
  const auto started = Clock::now();
  DWORD flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
  const auto create = [&] {
    return CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, capture || tail ? TRUE : FALSE, flags,
                          spec.environment ? env_block.data() : nullptr, cwd.empty() ? nullptr : cwd.c_str(), &startup, &info);
  };
  // Wine answers ERROR_INTERNAL_ERROR when the new process died before it finished starting (its
  // loader, now and then, under load); none of the program's code has run, so one more try is safe.
  if (!create() && (GetLastError() != ERROR_INTERNAL_ERROR || !create())) {
    return std::unexpected(start_error(program, GetLastError()));
  }
  Handle process, thread;
  process.h = info.hProcess;
  thread.h = info.hThread;
  if (job.h != nullptr) AssignProcessToJobObject(job.h, process.h);
  ResumeThread(thread.h);
  handles.out_write.reset();
  handles.err_write.reset();
  in_copy.reset();
  out_copy.reset();

  if (!capture) SetConsoleCtrlHandler(ignore_ctrl, TRUE);
  ProcessResult result;
  std::thread out_reader, err_reader;
  if (tail) err_reader = std::thread(read_tail, tail_state, spec.stderr_tail, GetStdHandle(STD_ERROR_HANDLE));
  if (capture) {
    out_reader = std::thread(drain, handles.out_read.h, &result.out, spec.capture_limit, tee ? GetStdHandle(STD_OUTPUT_HANDLE) : nullptr);
    err_reader = std::thread(drain, handles.err_read.h, &result.err, spec.capture_limit, tee ? GetStdHandle(STD_ERROR_HANDLE) : nullptr);
  }
  wait_with_limits(spec, process.h, job.h, started, result);
  // Grandchildren may still hold the pipes: end the job so the readers see end-of-file.
  if (capture && job.h != nullptr) TerminateJobObject(job.h, 1);
  if (tail) {
    // A grandchild may hold the pipe: take what arrives within a moment, then leave the reader.
    std::unique_lock lock(tail_state->mutex);
    const bool finished = tail_state->done_cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return tail_state->done; });
    result.err_tail = tail_state->tail;
    lock.unlock();
    if (finished)
      err_reader.join();
    else
      err_reader.detach();
  }
  if (out_reader.joinable()) out_reader.join();
  if (err_reader.joinable()) err_reader.join();
  if (!capture) SetConsoleCtrlHandler(ignore_ctrl, FALSE);

  DWORD code = 0;
  GetExitCodeProcess(process.h, &code);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.exit_code = static_cast<int>(code);
  // NTSTATUS error codes (0xC...) mean the process died of an exception, not by calling exit().
  if (!result.timed_out && !result.cancelled && (code & 0xF0000000u) == 0xC0000000u) result.exception_status = code;
  return result;
}

ProcessSpec shell_command(const std::string& command) {
  ProcessSpec spec;
  wchar_t comspec[MAX_PATH];
  const DWORD n = GetEnvironmentVariableW(L"ComSpec", comspec, MAX_PATH);
  spec.program = n > 0 && n < MAX_PATH ? std::filesystem::path(comspec) : std::filesystem::path(L"cmd.exe");
  // /s: cmd strips the outer quotes and runs what is inside exactly as typed.
  spec.args = {"/d", "/s", "/c", "\"" + command + "\""};
  spec.windows_verbatim = true;
  return spec;
}

}  // namespace zcuda::platform
