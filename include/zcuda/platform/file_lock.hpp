#pragma once
// An exclusive lock shared by every zcuda process on the machine, held on a file (POSIX flock,
// Win32 LockFileEx). The holder writes its process id into the file so a waiter can say whom it
// waits for. The operating system releases the lock when the holder exits, even when killed.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include <zcuda/base/error.hpp>

namespace zcuda::platform {

class FileLock;
struct LockWait;
enum class LockMode;
Result<FileLock> lock_file(const std::filesystem::path& file, const LockWait& how);
Result<FileLock> lock_folder(const std::filesystem::path& folder, LockMode mode, const LockWait& how);

class FileLock {
 public:
  FileLock() = default;
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  bool held() const;
  void release();

 private:
  friend Result<FileLock> lock_file(const std::filesystem::path& file, const LockWait& how);
  friend Result<FileLock> lock_folder(const std::filesystem::path& folder, LockMode mode, const LockWait& how);
  explicit FileLock(std::intptr_t handle, bool writes_pid = true) : handle_(handle), writes_pid_(writes_pid) {}
  std::intptr_t handle_ = -1;  // fd on POSIX, HANDLE on Windows
  bool writes_pid_ = true;     // the holder's pid is in the file (not in a shared or folder lock)
};

struct LockWait {
  bool wait = true;  // false: fail at once with ErrorKind::locked
  std::chrono::milliseconds poll{200};
  const std::atomic<bool>* cancel = nullptr;  // stop waiting: ErrorKind::interrupted
  // Called once when the lock is busy, with the holder's process id when known.
  std::function<void(std::optional<long> holder)> on_wait;
};

// Takes the lock on `file` (created if missing), waiting while another process holds it.
Result<FileLock> lock_file(const std::filesystem::path& file, const LockWait& how);

// Exclusive: one holder, which may change what the lock guards. Shared: any number of holders,
// none of which changes it, and no exclusive holder meanwhile.
enum class LockMode { exclusive, shared };

// Locks a folder itself, so that nothing is written into it for the lock: POSIX flock on the
// folder's own descriptor; Windows (where a folder cannot carry a byte-range lock) a lock file in
// the user's temporary folder named for the folder's volume and file number, which two paths of
// one folder share. A folder that is a link is refused. No holder pid is known to waiters.
Result<FileLock> lock_folder(const std::filesystem::path& folder, LockMode mode, const LockWait& how);

}  // namespace zcuda::platform
