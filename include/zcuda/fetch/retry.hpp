#pragma once
// The retry policy, kept free of I/O so it can be tested alone: which failures are worth
// another attempt at the same source, and how long to wait before it.
#include <chrono>
#include <optional>
#include <string_view>

namespace zcuda::fetch {

enum class Verdict {
  retry,        // transient: try the same source again after a pause
  next_source,  // this source will not give the file: go to the next mirror at once
};

// HTTP status of a final response that is not 200/206. 408, 429 and 5xx (bar 501/505) are
// transient; other 4xx mean the URL is wrong, gone or forbidden.
Verdict classify_http_status(long status);

// A libcurl result code (CURLcode) of a transfer that failed below HTTP.
Verdict classify_transport(int curl_code);

// True for curl codes that mean the server's certificate was not trusted.
bool is_tls_verification_failure(int curl_code);

// Pause before retry number `retry` (1 for the first retry): capped exponential backoff with
// "equal jitter" (half fixed, half random; `unit_random` in [0, 1)) so that many clients do not
// retry in step. A server's Retry-After, capped at `retry_after_cap`, is waited at least.
std::chrono::milliseconds backoff_delay(int retry, std::chrono::milliseconds initial, std::chrono::milliseconds max,
                                        std::optional<std::chrono::seconds> retry_after, std::chrono::seconds retry_after_cap, double unit_random);

// CURLOPT_SSL_OPTIONS bits for a libcurl whose TLS backend reports `ssl_version` (from
// curl_version_info). On Windows an OpenSSL-backed libcurl needs CURLSSLOPT_NATIVE_CA to see
// the Windows certificate store; Schannel uses that store anyway, and elsewhere the system
// bundle is the default, so nothing is set there.
long ssl_options_for(std::string_view ssl_version, bool windows);

}  // namespace zcuda::fetch
