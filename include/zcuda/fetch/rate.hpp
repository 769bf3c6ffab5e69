#pragma once
// Transfer rate for progress displays: an exponentially weighted average over roughly the last
// few seconds, so the figure follows changes without jumping at every packet.
#include <chrono>
#include <cstdint>
#include <optional>

namespace zcuda::fetch {

class RateMeter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RateMeter(std::chrono::milliseconds window = std::chrono::milliseconds(3000)) : window_(window) {}

  // `received` is the running total; returns bytes per second (0 until there is a sample).
  double update(std::uint64_t received, Clock::time_point now);
  double rate() const { return rate_; }

 private:
  std::chrono::milliseconds window_;
  std::optional<Clock::time_point> last_time_;
  std::uint64_t last_received_ = 0;
  double rate_ = 0;
  bool seeded_ = false;
};

}  // namespace zcuda::fetch
