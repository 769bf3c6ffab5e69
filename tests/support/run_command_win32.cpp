// run_command on Windows: CreateProcessW with the arguments quoted as the C runtime parses them,
// pipes for the three streams, and the environment block built from this process's.
#include "support/run_command.hpp"

#include <windows.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <thread>

#include <zcuda/platform/process.hpp>

namespace zcuda::test {

namespace {

std::wstring widen(const std::string& text) {
  if (text.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n);
  return out;
}

bool same_name(const std::string& a, const std::string& b) {
  return CompareStringOrdinal(widen(a).c_str(), -1, widen(b).c_str(), -1, TRUE) == CSTR_EQUAL;
}

struct Handle {
  HANDLE h = nullptr;
  ~Handle() { reset(); }
  void reset() {
    if (h != nullptr && h != INVALID_HANDLE_VALUE) CloseHandle(h);
    h = nullptr;
  }
};

// CreateProcessW, started again (up to twice) when Wine answers ERROR_INTERNAL_ERROR: its loader,
// now and then under load, fails a new process before any of the program's code has run
// (src/core/platform/process_win32.cpp does the same for zcuda's own children).
BOOL create_process(std::wstring& command_line, BOOL inherit, DWORD flags, std::wstring& environment, STARTUPINFOW& startup,
                    PROCESS_INFORMATION& info) {
  for (int attempt = 1;; ++attempt) {
    if (CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, inherit, flags, environment.data(), nullptr, &startup, &info)) return TRUE;
    if (GetLastError() != ERROR_INTERNAL_ERROR || attempt == 3) return FALSE;
  }
}

// This process's environment with variables set and unset, as CreateProcessW takes it. Names are
// case-insensitive on Windows ("Path"): replaced and unset by that rule.
std::wstring environment_block(const std::map<std::string, std::string>& set, const std::vector<std::string>& unset) {
  platform::Environment environment = platform::current_environment();
  auto erase = [&](const std::string& name) { std::erase_if(environment, [&](const auto& entry) { return same_name(entry.first, name); }); };
  for (const auto& name : unset) erase(name);
  for (const auto& [name, value] : set) {
    erase(name);
    environment[name] = value;
  }
  std::wstring block;
  for (const auto& [name, value] : environment) block += widen(name) + L"=" + widen(value) + L'\0';
  block += L'\0';
  return block;
}

// A file for a child's output stream, inheritable.
HANDLE output_file(const std::filesystem::path& file) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  return CreateFileW(file.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &inheritable, CREATE_ALWAYS,
                     FILE_ATTRIBUTE_NORMAL, nullptr);
}

void drain(HANDLE pipe, std::string* target) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(pipe, buffer, sizeof buffer, &n, nullptr) && n > 0) target->append(buffer, n);
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) throw std::runtime_error("run_command needs a program");
  std::wstring command_line = widen(platform::windows_command_line(argv[0], {argv.begin() + 1, argv.end()}));

  std::wstring block = environment_block(options.set_env, options.unset_env);

  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  Handle out_read, out_write, err_read, err_write, in_read, in_write;
  if (!CreatePipe(&out_read.h, &out_write.h, &inheritable, 0) || !CreatePipe(&err_read.h, &err_write.h, &inheritable, 0) ||
      !CreatePipe(&in_read.h, &in_write.h, &inheritable, 0)) {
    throw std::runtime_error("CreatePipe failed");
  }
  for (HANDLE ours : {out_read.h, err_read.h, in_write.h}) SetHandleInformation(ours, HANDLE_FLAG_INHERIT, 0);

  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = in_read.h;
  startup.hStdOutput = out_write.h;
  startup.hStdError = err_write.h;
  PROCESS_INFORMATION info{};
  if (!create_process(command_line, TRUE, CREATE_UNICODE_ENVIRONMENT, block, startup, info)) {
    CommandResult failed;
    failed.exit_code = 127;  // as a POSIX shell reports a program it could not start
    failed.err = "could not start " + argv[0] + ": Windows error " + std::to_string(GetLastError());
    return failed;
  }
  Handle process, thread;
  process.h = info.hProcess;
  thread.h = info.hThread;
  out_write.reset();
  err_write.reset();
  in_read.reset();

  CommandResult result;
  std::thread out_reader(drain, out_read.h, &result.out);
  std::thread err_reader(drain, err_read.h, &result.err);
  if (options.stdin_text) {
    DWORD written = 0;
    WriteFile(in_write.h, options.stdin_text->data(), static_cast<DWORD>(options.stdin_text->size()), &written, nullptr);
  }
  in_write.reset();
  const bool timed_out = WaitForSingleObject(process.h, static_cast<DWORD>(options.timeout_seconds) * 1000u) == WAIT_TIMEOUT;
  if (timed_out) {
    TerminateProcess(process.h, 1);
    WaitForSingleObject(process.h, INFINITE);
  }
  out_reader.join();
  err_reader.join();
  if (timed_out) throw std::runtime_error("command timed out: " + argv[0]);
  DWORD code = 0;
  GetExitCodeProcess(process.h, &code);
  result.exit_code = static_cast<int>(code);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const BackgroundOptions& options) : options_(options) {
  std::wstring command_line = widen(platform::windows_command_line(argv.at(0), {argv.begin() + 1, argv.end()}));
  std::wstring block = environment_block(options_.set_env, {});
  Handle out, err;
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  if (options_.out || options_.err) {
    if (options_.out) out.h = output_file(*options_.out);
    if (options_.err) err.h = output_file(*options_.err);
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    startup.hStdOutput = options_.out ? out.h : GetStdHandle(STD_OUTPUT_HANDLE);
    startup.hStdError = options_.err ? err.h : GetStdHandle(STD_ERROR_HANDLE);
  }
  PROCESS_INFORMATION info{};
  if (!create_process(command_line, startup.dwFlags != 0, CREATE_UNICODE_ENVIRONMENT | CREATE_NEW_PROCESS_GROUP, block, startup, info)) {
    throw std::runtime_error("could not start " + argv[0] + ": Windows error " + std::to_string(GetLastError()));
  }
  CloseHandle(info.hThread);
  handle_ = reinterpret_cast<long long>(info.hProcess);
  pid_ = static_cast<long>(info.dwProcessId);
}

BackgroundProcess::~BackgroundProcess() {
  if (!waited_) {
    kill();
    wait();
  }
  CloseHandle(reinterpret_cast<HANDLE>(handle_));
}

void BackgroundProcess::kill(int) { TerminateProcess(reinterpret_cast<HANDLE>(handle_), kKilledStatus); }
void BackgroundProcess::interrupt() { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(pid_)); }

bool BackgroundProcess::can_interrupt() {
  // Console control events travel through a console the sender and the program share.
  HANDLE console = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING, 0, nullptr);
  if (console == INVALID_HANDLE_VALUE) return false;
  CloseHandle(console);
  return true;
}

int BackgroundProcess::wait() {
  if (waited_) return status_;
  const HANDLE process = reinterpret_cast<HANDLE>(handle_);
  WaitForSingleObject(process, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(process, &code);
  waited_ = true;
  status_ = static_cast<int>(code);
  return status_;
}

}  // namespace zcuda::test
