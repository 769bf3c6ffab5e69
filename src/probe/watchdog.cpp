#include "watchdog.hpp"

#include <cstdio>
#include <cstdlib>

namespace zcuda::probe {

Watchdog::Watchdog(double seconds) : limit_(seconds), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::begin(const std::string& check) {
  {
    std::lock_guard lock(mutex_);
    check_ = check;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit_);
  }
  changed_.notify_all();
}

void Watchdog::end() {
  {
    std::lock_guard lock(mutex_);
    deadline_.reset();
  }
  changed_.notify_all();
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!deadline_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, *deadline_) == std::cv_status::timeout && deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
      std::fprintf(stderr, "zcuda-probe: %s gave no result within %.0f s; ending the probe\n", check_.c_str(), limit_.count());
      std::fflush(stderr);
      // The check's thread is stuck inside a library: only ending the process frees it.
      std::_Exit(kWatchdogExitCode);
    }
  }
}

}  // namespace zcuda::probe
