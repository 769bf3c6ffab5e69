#pragma once
// A small download held in memory with hard bounds: at most `max_bytes`, within `time_limit`,
// redirects only within the same host. For signed metadata (the knowledge index), whose server is
// not trusted: an endless, slow or redirected answer is refused rather than waited for.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <zcuda/base/error.hpp>

namespace zcuda::fetch {

struct SmallRequest {
  std::string url;  // http(s)://
  std::uint64_t max_bytes = 0;
  std::chrono::seconds time_limit{60};
  std::optional<std::filesystem::path> ca_bundle;
  int max_redirects = 5;
};

// Why a small download failed, beyond its Error's kind.
enum class SmallFailure {
  other,
  too_large,         // announced or sent more than max_bytes (ErrorKind::integrity)
  too_slow,          // not done within time_limit (ErrorKind::network)
  foreign_redirect,  // a redirect to another host or scheme (ErrorKind::network)
};
struct SmallError {
  Error error;  // incomplete: the connection ended before the announced length; network: the rest
  SmallFailure why = SmallFailure::other;
};

std::expected<std::string, SmallError> get_small(const SmallRequest& request);

}  // namespace zcuda::fetch
