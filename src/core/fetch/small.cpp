// Bounded in-memory GET with libcurl. Redirects are followed here, one at a time, so each new
// location can be checked against the first URL's host before anything is sent there.
#include <zcuda/fetch/small.hpp>

#include <memory>

#include <curl/curl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/fetch/retry.hpp>

#include "internal.hpp"

namespace zcuda::fetch {

namespace {

struct Body {
  std::string data;
  std::uint64_t max_bytes = 0;
  bool over = false;
};

std::size_t on_body(char* ptr, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t n = size * count;
  if (body->data.size() + n > body->max_bytes) {
    body->over = true;
    return 0;  // stops the transfer
  }
  body->data.append(ptr, n);
  return n;
}

// scheme and host (with port) of a URL, lowercase, as libcurl's URL parser sees them.
std::optional<std::string> origin_of(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), &curl_url_cleanup);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return std::nullopt;
  auto part = [&](CURLUPart which, unsigned flags) -> std::string {
    char* text = nullptr;
    if (curl_url_get(u.get(), which, &text, flags) != CURLUE_OK || text == nullptr) return {};
    std::string out(text);
    curl_free(text);
    return out;
  };
  return part(CURLUPART_SCHEME, 0) + "://" + part(CURLUPART_HOST, 0) + ":" + part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
}

}  // namespace

namespace {

std::unexpected<SmallError> small_fail(SmallFailure why, ErrorKind kind, std::string message, std::string hint = {}) {
  return std::unexpected(SmallError{Error{kind, std::move(message), std::move(hint), {}}, why});
}

}  // namespace

std::expected<std::string, SmallError> get_small(const SmallRequest& request) {
  detail::ensure_curl_initialised();
  const auto origin = origin_of(request.url);
  if (!origin) return small_fail(SmallFailure::other, ErrorKind::usage, fmt::format("{} is not a URL", request.url));
  const auto deadline = std::chrono::steady_clock::now() + request.time_limit;
  Options ca_options;
  ca_options.ca_bundle = request.ca_bundle;
  const std::string ca = detail::ca_bundle(ca_options);

  std::string url = request.url;
  for (int hop = 0; hop <= request.max_redirects; ++hop) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), &curl_easy_cleanup);
    if (!handle) return small_fail(SmallFailure::other, ErrorKind::internal, "libcurl could not start");
    CURL* h = handle.get();
    Body body;
    body.max_bytes = request.max_bytes;
    char errors[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errors);
    detail::set_transport_options(h, ca);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(left.count()));
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_bytes));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    const CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    spdlog::debug("{}: curl {}, HTTP {}, {} bytes", url, static_cast<int>(rc), status, body.data.size());
    if (body.over || rc == CURLE_FILESIZE_EXCEEDED) {
      return small_fail(SmallFailure::too_large, ErrorKind::integrity,
                        fmt::format("{} sent more than the {} bytes allowed for it; stopped there", url, request.max_bytes),
                        "The server or a proxy on the way is not serving a knowledge bundle; nothing was kept.");
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return small_fail(SmallFailure::too_slow, ErrorKind::network,
                        fmt::format("{} did not finish within {} s ({} bytes received)", url, request.time_limit.count(), body.data.size()),
                        "The server is too slow or holding the connection open; try again later, or raise --max-time.");
    }
    if (rc == CURLE_PARTIAL_FILE) {
      return small_fail(SmallFailure::other, ErrorKind::incomplete,
                        fmt::format("{} ended after {} bytes, before the length it announced", url, body.data.size()),
                        "The connection broke; run the command again.");
    }
    if (rc != CURLE_OK) {
      if (is_tls_verification_failure(static_cast<int>(rc))) {
        return small_fail(SmallFailure::other, ErrorKind::network,
                          fmt::format("Could not verify the TLS certificate of {}: {}", url, errors[0] ? errors : curl_easy_strerror(rc)),
                          "Pass the CA certificate with --cacert FILE (or set CURL_CA_BUNDLE) if a proxy inspects HTTPS here.");
      }
      return small_fail(SmallFailure::other, ErrorKind::network,
                        fmt::format("Could not download {}: {}", url, errors[0] ? errors : curl_easy_strerror(rc)),
                        "Check the network and the feed URL, or use --from DIR with a copy of the bundle.");
    }
    if (status >= 300 && status < 400) {
      char* location = nullptr;
      curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr)
        return small_fail(SmallFailure::other, ErrorKind::network, fmt::format("{} answered HTTP {} without a location", url, status));
      const std::string next(location);
      if (origin_of(next) != origin) {
        return small_fail(SmallFailure::foreign_redirect, ErrorKind::network,
                          fmt::format("{} redirects to {}, another host than the feed's", url, next),
                          "A feed and its files must be served from one host; point --feed or --from at the mirror itself.");
      }
      url = next;
      continue;
    }
    if (status != 200) return small_fail(SmallFailure::other, ErrorKind::network, fmt::format("Server answered HTTP {} for {}", status, url));
    return std::move(body.data);
  }
  if (std::chrono::steady_clock::now() >= deadline) {
    return small_fail(SmallFailure::too_slow, ErrorKind::network,
                      fmt::format("{} did not finish within {} s", request.url, request.time_limit.count()));
  }
  return small_fail(SmallFailure::other, ErrorKind::network, fmt::format("{} redirected more than {} times", request.url, request.max_redirects));
}

}  // namespace zcuda::fetch
