#include <zcuda/platform/file_lock.hpp>

#include <windows.h>

#include <string>
#include <thread>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

namespace {

// The lock covers one byte far past the pid text, so waiters can still read who holds it
// (a locked range cannot be read by other handles on Windows).
constexpr DWORD kLockOffsetHigh = 0x40000000;

HANDLE as_handle(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }

std::error_code last_error() { return std::error_code(static_cast<int>(GetLastError()), std::system_category()); }

std::optional<long> read_holder(HANDLE h) {
  char buffer[32] = {};
  OVERLAPPED at{};
  DWORD n = 0;
  if (!ReadFile(h, buffer, sizeof buffer - 1, &n, &at) || n == 0) return std::nullopt;
  char* end = nullptr;
  long pid = std::strtol(buffer, &end, 10);
  if (end == buffer || pid <= 0) return std::nullopt;
  return pid;
}

void write_pid(HANDLE h) {
  const std::string pid = std::to_string(GetCurrentProcessId()) + "\r\n";
  LARGE_INTEGER zero{};
  SetFilePointerEx(h, zero, nullptr, FILE_BEGIN);
  SetEndOfFile(h);
  DWORD written = 0;
  OVERLAPPED at{};
  WriteFile(h, pid.data(), static_cast<DWORD>(pid.size()), &written, &at);
}

}  // namespace

FileLock::FileLock(FileLock&& other) noexcept : handle_(other.handle_), writes_pid_(other.writes_pid_) { other.handle_ = -1; }

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = other.handle_;
    writes_pid_ = other.writes_pid_;
    other.handle_ = -1;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

bool FileLock::held() const { return handle_ != -1; }

void FileLock::release() {
  if (handle_ == -1) return;
  HANDLE h = as_handle(handle_);
  if (writes_pid_) {
    LARGE_INTEGER zero{};
    SetFilePointerEx(h, zero, nullptr, FILE_BEGIN);
    SetEndOfFile(h);
  }
  OVERLAPPED range{};
  range.OffsetHigh = kLockOffsetHigh;
  UnlockFileEx(h, 0, 1, 0, &range);
  CloseHandle(h);
  handle_ = -1;
}

namespace {

// Waits for LockFileEx on `h` as `how` says; `what` names the lock in messages.
Status wait_for_lock(HANDLE h, bool exclusive, const std::filesystem::path& what, const LockWait& how, bool knows_holder) {
  bool announced = false;
  for (;;) {
    OVERLAPPED range{};
    range.OffsetHigh = kLockOffsetHigh;
    const DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
    if (LockFileEx(h, flags, 0, 1, 0, &range)) return {};
    if (GetLastError() != ERROR_LOCK_VIOLATION && GetLastError() != ERROR_IO_PENDING) {
      return std::unexpected(io_error("lock", what, last_error()));
    }
    auto holder = knows_holder ? read_holder(h) : std::nullopt;
    if (!how.wait) {
      Error busy{ErrorKind::locked,
                 holder ? fmt::format("Another zcuda process (pid {}) holds the lock {}", *holder, what)
                        : fmt::format("Another zcuda process holds the lock {}", what),
                 "Wait for it to finish, or run without --no-wait to wait for it.",
                 {}};
      if (holder) busy.notes.push_back(fmt::format("holder pid: {}", *holder));
      return std::unexpected(std::move(busy));
    }
    if (!announced && how.on_wait) how.on_wait(holder);
    announced = true;
    if (how.cancel != nullptr && how.cancel->load()) return fail(ErrorKind::interrupted, "Interrupted while waiting for another zcuda process");
    std::this_thread::sleep_for(how.poll);
  }
}

// Closes a handle that holds no lock, without touching the file: only the holder may clear it.
struct Unheld {
  HANDLE h;
  ~Unheld() {
    if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
  }
};

}  // namespace

Result<FileLock> lock_file(const std::filesystem::path& file, const LockWait& how) {
  HANDLE h = CreateFileW(file.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return std::unexpected(io_error("open the lock file", file, last_error()));
  Unheld unheld{h};
  if (auto taken = wait_for_lock(h, true, file, how, true); !taken) return std::unexpected(taken.error());
  unheld.h = INVALID_HANDLE_VALUE;
  FileLock lock(reinterpret_cast<std::intptr_t>(h));
  write_pid(h);
  return lock;
}

Result<FileLock> lock_folder(const std::filesystem::path& folder, LockMode mode, const LockWait& how) {
  const DWORD attributes = GetFileAttributesW(folder.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) return std::unexpected(io_error("open", folder, last_error()));
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 || (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
    return fail(ErrorKind::invalid_input, fmt::format("{} is not a folder of its own (a link, a junction or a file)", folder),
                "zcuda changes only real folders; give the folder the link points to, if you trust it.");
  }
  auto id = file_identity(folder);
  if (!id) return std::unexpected(id.error());
  wchar_t temp[MAX_PATH + 1] = {};
  const DWORD length = GetTempPathW(MAX_PATH + 1, temp);
  if (length == 0 || length > MAX_PATH) return std::unexpected(io_error("find the temporary folder for", folder, last_error()));
  const std::filesystem::path locks = std::filesystem::path(temp) / L"zcuda-locks";
  std::error_code ec;
  std::filesystem::create_directories(locks, ec);
  const std::filesystem::path file = locks / fmt::format("folder-{:08x}-{:016x}.lock", id->volume, id->index);
  // No FILE_SHARE_DELETE: a temp cleaner cannot remove the file while a process holds it.
  HANDLE h = CreateFileW(file.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL,
                         nullptr);
  if (h == INVALID_HANDLE_VALUE) return std::unexpected(io_error("open the lock file", file, last_error()));
  Unheld unheld{h};
  if (auto taken = wait_for_lock(h, mode == LockMode::exclusive, folder, how, false); !taken) return std::unexpected(taken.error());
  unheld.h = INVALID_HANDLE_VALUE;
  return FileLock(reinterpret_cast<std::intptr_t>(h), false);
}

}  // namespace zcuda::platform
