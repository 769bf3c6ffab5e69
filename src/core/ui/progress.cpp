#include <zcuda/ui/progress.hpp>

#include <cmath>

#include <fmt/format.h>

#include <zcuda/platform/terminal.hpp>
#include <zcuda/base/units.hpp>

namespace zcuda::ui {

std::optional<double> eta_seconds(std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second) {
  if (!total || bytes_per_second <= 0 || !std::isfinite(bytes_per_second)) return std::nullopt;
  if (received >= *total) return 0.0;
  return static_cast<double>(*total - received) / bytes_per_second;
}

std::string format_progress(std::string_view label, std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second, int width) {
  std::string figures = format_bytes(received);
  if (total) {
    figures += " / " + format_bytes(*total);
    if (*total > 0) {
      auto percent = static_cast<int>(std::min<std::uint64_t>(100, received * 100 / *total));
      figures += fmt::format("  {:3}%", percent);
    }
  }
  if (bytes_per_second > 0) {
    figures += "  " + format_bytes(static_cast<std::uint64_t>(bytes_per_second)) + "/s";
    if (auto eta = eta_seconds(received, total, bytes_per_second)) figures += "  ETA " + format_duration(*eta);
  }
  // The figures matter more than the label: shorten the label first.
  auto room = static_cast<std::ptrdiff_t>(std::max(width, 20)) - 1 - static_cast<std::ptrdiff_t>(figures.size()) - 2;
  std::string name(label);
  if (room <= 3) return figures.substr(0, static_cast<std::size_t>(std::max(width, 20) - 1));
  if (static_cast<std::ptrdiff_t>(name.size()) > room) name = name.substr(0, static_cast<std::size_t>(room - 3)) + "...";
  return name + "  " + figures;
}

ProgressLine::ProgressLine(std::FILE* stream) : ProgressLine(stream, platform::is_terminal(stream)) {}

ProgressLine::ProgressLine(std::FILE* stream, bool enabled) : stream_(stream), enabled_(enabled) {
  if (enabled_) width_ = platform::terminal_width(stream_);
}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(std::string_view label, std::uint64_t received, std::optional<std::uint64_t> total, double bytes_per_second, bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && last_draw_ && now - *last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::string line = format_progress(label, received, total, bytes_per_second, width_);
  // "\x1b[K" clears what a longer previous line left to the right.
  std::fputs(("\r" + line + "\x1b[K").c_str(), stream_);
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!enabled_ || !drawn_) return;
  std::fputs("\r\x1b[K", stream_);
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace zcuda::ui
