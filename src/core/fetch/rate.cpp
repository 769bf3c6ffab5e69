#include <zcuda/fetch/rate.hpp>

#include <cmath>

namespace zcuda::fetch {

double RateMeter::update(std::uint64_t received, Clock::time_point now) {
  if (!last_time_) {
    last_time_ = now;
    last_received_ = received;
    return rate_;
  }
  double seconds = std::chrono::duration<double>(now - *last_time_).count();
  // Samples closer than 50 ms say more about scheduling than about the link.
  if (seconds < 0.05) return rate_;
  double delta = received >= last_received_ ? static_cast<double>(received - last_received_) : 0.0;
  double sample = delta / seconds;
  if (!seeded_) {
    rate_ = sample;
    seeded_ = true;
  } else {
    // Weight the new sample by the share of the window it covers.
    double window = std::chrono::duration<double>(window_).count();
    double alpha = 1.0 - std::exp(-seconds / window);
    rate_ += alpha * (sample - rate_);
  }
  last_time_ = now;
  last_received_ = received;
  return rate_;
}

}  // namespace zcuda::fetch
