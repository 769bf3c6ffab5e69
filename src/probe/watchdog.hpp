#pragma once
// Ends the probe when one check of a group runs past its time, so a hung check costs its own
// timeout, not the whole group's. The runner's process timeout stays the backstop: it also kills
// any child process a hung library left behind.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace zcuda::probe {

inline constexpr int kWatchdogExitCode = 124;

class Watchdog {
 public:
  explicit Watchdog(double seconds);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void begin(const std::string& check);  // starts the clock for this check
  void end();                            // the check reported in time

 private:
  void watch();

  std::chrono::duration<double> limit_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string check_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace zcuda::probe
