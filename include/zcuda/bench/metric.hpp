#pragma once
// What a bench measures in a run's output: every match of a pattern with one capture group is
// one value (a training program printing steps/s per iteration gives one value per iteration).
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::bench {

class Metric {
 public:
  // A usage error unless `pattern` is a valid ECMAScript regular expression with exactly one
  // capture group.
  static Result<Metric> compile(const std::string& pattern);

  const std::string& pattern() const { return pattern_; }

  // The values in `output`, in order: matched line by line, each capture read as a number.
  // A capture that is not a finite number above 0 ("nan", "inf", "-5", "0", "1.2.3") is kept, as
  // written, in `rejected`: a bench compares ratios of values, and such a value is a broken run.
  struct Values {
    std::vector<double> values;
    std::vector<std::string> rejected;
  };
  Values extract(std::string_view output) const;

 private:
  std::string pattern_;
  std::regex regex_;
};

}  // namespace zcuda::bench
