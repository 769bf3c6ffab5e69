#include <zcuda/base/time_name.hpp>

#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace zcuda {

std::string time_ordered_name() {
  const auto now = std::chrono::system_clock::now();
  const auto unique = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() % 1000000000;
  return fmt::format("{:%Y%m%dT%H%M%S}-{:09}", std::chrono::floor<std::chrono::seconds>(now), unique);
}

}  // namespace zcuda
