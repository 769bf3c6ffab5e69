#include <zcuda/verify/verify.hpp>

#include <fmt/format.h>

#include <zcuda/base/enum_words.hpp>

namespace zcuda::verify {

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::unsupported:
      return "unsupported";
    case CheckStatus::missing:
      return "missing";
    case CheckStatus::error:
      return "error";
    case CheckStatus::crash:
      return "crash";
    case CheckStatus::timeout:
      return "timeout";
  }
  return "error";
}

std::optional<CheckStatus> check_status_from(std::string_view word) {
  return enum_from_word(word, {CheckStatus::pass, CheckStatus::fail, CheckStatus::unsupported, CheckStatus::missing, CheckStatus::error,
                               CheckStatus::crash, CheckStatus::timeout});
}

std::string tally(const std::map<CheckStatus, int>& counts) {
  std::string line;
  for (const auto& [status, n] : counts) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", n, to_string(status));
  return line;
}

}  // namespace zcuda::verify
