#pragma once
// Makes writes fail past `bytes` (EFBIG, SIGXFSZ ignored) for as long as it lives: how the tests
// stand in for a full disk without root or a small filesystem. POSIX only: Windows has no
// per-process file-size limit, and a full volume cannot be made there without administrator
// rights, so tests that need one begin with ZCUDA_REQUIRE_FILE_SIZE_LIMIT() and are skipped
// (and listed as such) on Windows.
#include <cstddef>

#ifdef _WIN32
#define ZCUDA_REQUIRE_FILE_SIZE_LIMIT() GTEST_SKIP() << "needs a full disk: Windows has no RLIMIT_FSIZE and a full volume needs administrator rights"

namespace zcuda::test {

// Never used past the skip above; present so the tests compile unchanged.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(std::size_t) {}
  bool active() const { return false; }
};

}  // namespace zcuda::test
#else
#include <sys/resource.h>

#include <csignal>

#define ZCUDA_REQUIRE_FILE_SIZE_LIMIT() static_cast<void>(0)

namespace zcuda::test {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(std::size_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_limit_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old_limit_;
    small.rlim_cur = bytes;
    active_ = setrlimit(RLIMIT_FSIZE, &small) == 0;
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_limit_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

  bool active() const { return active_; }

 private:
  rlimit old_limit_{};
  void (*old_handler_)(int) = SIG_DFL;
  bool active_ = false;
};

}  // namespace zcuda::test
#endif
