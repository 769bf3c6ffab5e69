#include <zcuda/platform/file_lock.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

namespace {

std::optional<long> read_holder(int fd) {
  char buffer[32] = {};
  ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return std::nullopt;
  char* end = nullptr;
  long pid = std::strtol(buffer, &end, 10);
  if (end == buffer || pid <= 0) return std::nullopt;
  return pid;
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

bool FileLock::held() const { return handle_ >= 0; }

void FileLock::release() {
  if (handle_ < 0) return;
  const int fd = static_cast<int>(handle_);
  // Clear the pid first so nobody reads a stale holder; closing drops the lock.
  if (writes_pid_ && ::ftruncate(fd, 0) != 0) {
    // Harmless: a waiter would only print an old pid.
  }
  ::close(fd);
  handle_ = -1;
}

namespace {

// Waits for flock's `operation` on `fd`, as `how` says; `what` names the lock in messages.
Status wait_for_flock(int fd, int operation, const std::filesystem::path& what, const LockWait& how, bool knows_holder) {
  bool announced = false;
  for (;;) {
    if (::flock(fd, operation | LOCK_NB) == 0) return {};
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return std::unexpected(io_error("lock", what, std::error_code(errno, std::generic_category())));
    auto holder = knows_holder ? read_holder(fd) : std::nullopt;
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

}  // namespace

Result<FileLock> lock_file(const std::filesystem::path& file, const LockWait& how) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(io_error("open the lock file", file, std::error_code(errno, std::generic_category())));
  // Closes without touching the file: only the holder may clear the pid in it.
  struct Unheld {
    int fd;
    ~Unheld() {
      if (fd >= 0) ::close(fd);
    }
  } unheld{fd};
  if (auto taken = wait_for_flock(fd, LOCK_EX, file, how, true); !taken) return std::unexpected(taken.error());
  unheld.fd = -1;
  FileLock lock(fd);
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock is held all the same; only the pid shown to waiters is missing.
  }
  return lock;
}

Result<FileLock> lock_folder(const std::filesystem::path& folder, LockMode mode, const LockWait& how) {
  // O_NOFOLLOW: a link planted in place of the folder is refused (ELOOP), not followed.
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int code = errno;
    if (code == ELOOP || code == ENOTDIR) {
      return fail(ErrorKind::invalid_input, fmt::format("{} is not a folder of its own (a link or a file)", folder),
                  "zcuda changes only real folders; give the folder the link points to, if you trust it.");
    }
    return std::unexpected(io_error("open", folder, std::error_code(code, std::generic_category())));
  }
  struct Unheld {
    int fd;
    ~Unheld() {
      if (fd >= 0) ::close(fd);
    }
  } unheld{fd};
  const int operation = mode == LockMode::exclusive ? LOCK_EX : LOCK_SH;
  if (auto taken = wait_for_flock(fd, operation, folder, how, false); !taken) return std::unexpected(taken.error());
  unheld.fd = -1;
  return FileLock(fd, false);
}

}  // namespace zcuda::platform
