#include <zcuda/fetch/retry.hpp>

#include <algorithm>
#include <cmath>

#include <curl/curl.h>

namespace zcuda::fetch {

Verdict classify_http_status(long status) {
  if (status == 408 || status == 429) return Verdict::retry;
  // 501 Not Implemented and 505 Version Not Supported will not change on a second try.
  if (status >= 500 && status <= 599 && status != 501 && status != 505) return Verdict::retry;
  return Verdict::next_source;
}

Verdict classify_transport(int curl_code) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_COULDNT_RESOLVE_HOST:  // DNS hiccups; the curl tool's --retry treats them so too
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:     // refused or unreachable
    case CURLE_OPERATION_TIMEDOUT:  // connect timeout or stall (LOW_SPEED_TIME)
    case CURLE_PARTIAL_FILE:        // the body ended before its Content-Length
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:         // connection reset
    case CURLE_SSL_CONNECT_ERROR:  // handshake cut off
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return Verdict::retry;
    default:
      return Verdict::next_source;
  }
}

bool is_tls_verification_failure(int curl_code) {
  auto code = static_cast<CURLcode>(curl_code);
  return code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_ISSUER_ERROR ||
         code == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}

std::chrono::milliseconds backoff_delay(int retry, std::chrono::milliseconds initial, std::chrono::milliseconds max,
                                        std::optional<std::chrono::seconds> retry_after, std::chrono::seconds retry_after_cap, double unit_random) {
  using std::chrono::milliseconds;
  int doublings = std::clamp(retry - 1, 0, 30);
  double base = std::min(static_cast<double>(initial.count()) * std::ldexp(1.0, doublings), static_cast<double>(max.count()));
  double jitter = std::clamp(unit_random, 0.0, 1.0);
  auto delay = milliseconds(static_cast<long long>(base / 2 + base / 2 * jitter));
  if (retry_after) {
    auto asked = std::chrono::duration_cast<milliseconds>(std::min(*retry_after, retry_after_cap));
    delay = std::max(delay, asked);
  }
  return delay;
}

long ssl_options_for(std::string_view ssl_version, bool windows) {
  if (windows && ssl_version.starts_with("OpenSSL")) return CURLSSLOPT_NATIVE_CA;
  return 0;
}

}  // namespace zcuda::fetch
