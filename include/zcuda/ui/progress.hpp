#pragma once
// One progress line for long transfers: bytes, rate and ETA, redrawn in place with '\r'.
// Drawn only when the stream is a terminal, so logs and pipes never see it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace zcuda::ui {

// Seconds left at `bytes_per_second`, or nothing when it cannot be known.
std::optional<double> eta_seconds(std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second);

// "libtorch.zip  512.0 MiB / 2.5 GiB  20%  48.2 MiB/s  ETA 42.0 s", cut to `width` columns.
std::string format_progress(std::string_view label, std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second, int width);

class ProgressLine {
 public:
  // Enabled when `stream` is a terminal.
  explicit ProgressLine(std::FILE* stream = stderr);
  ProgressLine(std::FILE* stream, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Redraws at most ten times a second unless `force`.
  void update(std::string_view label, std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second, bool force = false);
  // Clears the line so that the next message starts on a clean one.
  void finish();

 private:
  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
  int width_ = 80;
  std::optional<std::chrono::steady_clock::time_point> last_draw_;
};

}  // namespace zcuda::ui
