#include <zcuda/verify/verify.hpp>

namespace zcuda::verify {

namespace {
constexpr CheckStatus kAll[] = {CheckStatus::pass,  CheckStatus::fail,  CheckStatus::unsupported, CheckStatus::missing,
                                CheckStatus::error, CheckStatus::crash, CheckStatus::timeout};
}

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
  for (auto status : kAll) {
    if (to_string(status) == word) return status;
  }
  return std::nullopt;
}

}  // namespace zcuda::verify
