#include <zcuda/bench/metric.hpp>

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace zcuda::bench {

Result<Metric> Metric::compile(const std::string& pattern) {
  const std::string hint = "Give a pattern with one capture group around the number, for example --metric 'overall_sps ([0-9.]+)'.";
  Metric metric;
  metric.pattern_ = pattern;
  try {
    metric.regex_ = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fail(ErrorKind::usage, fmt::format("--metric '{}' is not a valid regular expression: {}", pattern, e.what()), hint);
  }
  if (metric.regex_.mark_count() != 1) {
    return fail(ErrorKind::usage, fmt::format("--metric '{}' has {} capture groups; it needs exactly one", pattern, metric.regex_.mark_count()),
                hint);
  }
  return metric;
}

Metric::Values Metric::extract(std::string_view output) const {
  Values out;
  // Line by line: std::regex recurses per character, and one match over megabytes of output
  // could exhaust the stack.
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    const std::string_view line = output.substr(start, end - start);
    for (auto it = std::cregex_iterator(line.data(), line.data() + line.size(), regex_); it != std::cregex_iterator(); ++it) {
      const auto& group = (*it)[1];
      if (!group.matched) continue;
      double value = 0;
      const auto [ptr, ec] = std::from_chars(group.first, group.second, value);
      if (ec == std::errc() && ptr == group.second && std::isfinite(value) && value > 0) {
        out.values.push_back(value);
      } else {
        out.rejected.emplace_back(group.first, group.second);
      }
    }
    start = end + 1;
  }
  return out;
}

}  // namespace zcuda::bench
