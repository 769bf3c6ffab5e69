// One HTTP(S) attempt with libcurl: the body is hashed and appended to the partial as it
// arrives; a resume asks for the rest with Range + If-Range and copes with servers that answer
// with the whole file instead.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <system_error>

#include <curl/curl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/base/whole_number.hpp>
#include <zcuda/fetch/retry.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>

#include "internal.hpp"

namespace zcuda::fetch::detail {

void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

void set_transport_options(CURL* h, const std::string& ca) {
  curl_easy_setopt(h, CURLOPT_USERAGENT, fmt::format("zcuda/{}", version()).c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!ca.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca.c_str());
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  long ssl_options = ssl_options_for(info->ssl_version ? info->ssl_version : "", platform::current_os() == platform::Os::windows);
  if (ssl_options != 0) curl_easy_setopt(h, CURLOPT_SSL_OPTIONS, ssl_options);
}

namespace {

struct ContentRange {
  std::optional<std::uint64_t> start;  // absent for "bytes */total" (a 416 answer)
  std::optional<std::uint64_t> total;  // absent for "bytes a-b/*"
};

// "bytes 100-299/300", "bytes */300" (RFC 9110 14.4)
std::optional<ContentRange> parse_content_range(std::string_view value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  auto slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange range;
  std::string_view span = value.substr(0, slash), total = value.substr(slash + 1);
  if (total != "*") {
    range.total = whole_number<std::uint64_t>(total);
    if (!range.total) return std::nullopt;
  }
  if (span != "*") {
    auto dash = span.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    range.start = whole_number<std::uint64_t>(span.substr(0, dash));
    if (!range.start) return std::nullopt;
  }
  return range;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

struct Transfer {
  Transfer(const std::string& url_, Partial& partial_, const Request& request_, const Options& options_, CURL* curl_)
      : url(url_), partial(partial_), request(request_), options(options_), curl(curl_), progress(options_, url_) {}

  const std::string& url;
  Partial& partial;
  const Request& request;
  const Options& options;
  CURL* curl = nullptr;
  ProgressReporter progress;
  std::ofstream out;
  std::vector<char> out_buffer = std::vector<char>(1u << 20);

  // Headers of the latest response; a redirect chain delivers several.
  std::string content_range, etag, last_modified;

  bool body_started = false;
  bool appended = false;
  std::optional<std::uint64_t> expected_total;
  std::uint64_t bytes_received = 0;
  enum class Stop { none, http_status, too_large, over_bound, bad_range, stalled } stop = Stop::none;
  std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
  std::optional<Error> fatal;  // a disk error: nothing more can be written
};

bool open_output(Transfer& t, std::ios::openmode mode) {
  t.out.close();
  // A large buffer keeps the number of write calls low on multi-GB downloads.
  t.out.rdbuf()->pubsetbuf(t.out_buffer.data(), static_cast<std::streamsize>(t.out_buffer.size()));
  t.out.open(t.partial.path, std::ios::binary | mode);
  if (!t.out) {
    t.fatal = io_error("write", t.partial.path, std::error_code(errno, std::generic_category()));
    return false;
  }
  return true;
}

void remember_validators(Transfer& t) {
  Validators v{t.url, t.etag, t.last_modified};
  if (auto saved = write_validators(t.partial.meta, v); !saved) {
    t.fatal = saved.error();
    return;
  }
  t.partial.validators = v;
}

// Called when the body of the final response begins: decide whether it continues the partial,
// replaces it, or is not the file at all.
bool begin_body(Transfer& t) {
  t.body_started = true;
  long status = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 206) {
    auto range = parse_content_range(t.content_range);
    if (!range || !range->start || *range->start != t.partial.size) {
      spdlog::info("{}: Content-Range \"{}\" does not continue the {} bytes held; starting again", t.url, t.content_range, t.partial.size);
      t.stop = Transfer::Stop::bad_range;
      return false;
    }
    t.appended = t.partial.size > 0;
    t.expected_total = range->total;
    if (!open_output(t, std::ios::app)) return false;
    if (!t.partial.validators || t.partial.validators->url != t.url) remember_validators(t);
    spdlog::info("{}: resuming at byte {}", t.url, t.partial.size);
    return !t.fatal;
  }
  if (status == 200) {
    if (t.partial.size > 0) {
      // The server ignored Range, or If-Range found the file changed: the whole file follows.
      spdlog::info("{}: server sent the whole file instead of the rest; starting again from zero", t.url);
    }
    if (t.partial.size > 0 && t.partial.on_discard) t.partial.on_discard();
    if (!open_output(t, std::ios::trunc)) return false;
    t.partial.size = 0;
    t.partial.hasher.reset();
    curl_off_t length = -1;
    curl_easy_getinfo(t.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length >= 0) t.expected_total = static_cast<std::uint64_t>(length);
    remember_validators(t);
    return !t.fatal;
  }
  t.stop = Transfer::Stop::http_status;
  return false;
}

std::size_t on_header(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  t.last_activity = std::chrono::steady_clock::now();
  std::string_view line(buffer, size * count);
  if (line.starts_with("HTTP/")) {
    t.content_range.clear();
    t.etag.clear();
    t.last_modified.clear();
    return size * count;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  auto name = trim(line.substr(0, colon));
  auto value = std::string(trim(line.substr(colon + 1)));
  if (ascii_iequals(name, "content-range")) t.content_range = value;
  // A weak ETag may not be used in If-Range (RFC 9110 13.1.5); Last-Modified is used instead.
  else if (ascii_iequals(name, "etag") && !value.starts_with("W/"))
    t.etag = value;
  else if (ascii_iequals(name, "last-modified"))
    t.last_modified = value;
  return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::size_t n = size * count;
  if (!t.body_started && !begin_body(t)) return 0;
  // More bytes than pinned is the wrong file. When the server announces a larger size up front,
  // one chunk is kept (for the error's preview) and the rest is not waited for.
  bool announced_larger = t.expected_total && t.request.size && *t.expected_total > *t.request.size;
  if (t.request.size && (t.partial.size + n > *t.request.size || (announced_larger && t.bytes_received > 0))) {
    t.stop = Transfer::Stop::too_large;
    return 0;
  }
  // An unpinned file past its bound: refused on the announced length before a byte is written.
  if (!t.request.size && t.request.max_size &&
      ((t.expected_total && *t.expected_total > *t.request.max_size) || t.partial.size + n > *t.request.max_size)) {
    t.stop = Transfer::Stop::over_bound;
    return 0;
  }
  t.out.write(data, static_cast<std::streamsize>(n));
  if (!t.out) {
    int err = errno != 0 ? errno : EIO;
    t.fatal = io_error("write", t.partial.path, std::error_code(err, std::generic_category()));
    return 0;
  }
  t.partial.hasher.update(data, n);
  t.partial.size += n;
  t.bytes_received += n;
  t.last_activity = std::chrono::steady_clock::now();
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& t = *static_cast<Transfer*>(user);
  if (cancelled(t.options)) return 1;  // aborts with CURLE_ABORTED_BY_CALLBACK
  // libcurl's LOW_SPEED check averages over several seconds, so a stall after a fast start is
  // seen late; this one measures the silence itself. libcurl calls us about once a second
  // while nothing arrives.
  if (std::chrono::steady_clock::now() - t.last_activity > t.options.stall_timeout) {
    t.stop = Transfer::Stop::stalled;
    return 1;
  }
  auto total = t.request.size ? t.request.size : t.expected_total;
  t.progress.report(t.partial.size, total);
  return 0;
}

}  // namespace

std::string ca_bundle(const Options& options) {
  if (options.ca_bundle) return utf8(*options.ca_bundle);
  // libcurl itself ignores CURL_CA_BUNDLE (only the curl tool reads it); honour it the same way.
  if (auto env = platform::get_env("CURL_CA_BUNDLE")) return *env;
#ifdef ZCUDA_CURL_WITHOUT_CA_PATH
  // The portable build's libcurl has no CA file compiled in, because distributions keep it in
  // different places: use the first that exists of where they keep it (the list Go's
  // crypto/x509 searches); with none found, OpenSSL's defaults (/etc/ssl/certs) apply.
  for (const char* file : {"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
                           "/etc/pki/tls/cacert.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return file;
  }
#endif
  return {};
}

namespace {

void configure(CURL* h, Transfer& t, char* errors, const std::string& ca, curl_slist* headers) {
  const Options& o = t.options;
  curl_easy_setopt(h, CURLOPT_URL, t.url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errors);
  // CURLOPT_NOSIGNAL stays 0: libcurl then ignores SIGPIPE while it transfers, so a server that
  // hangs up mid-TLS-write cannot kill zcuda (the threaded resolver needs no SIGALRM anyway).
  set_transport_options(h, ca);
  // Redirects (GitHub release assets go through one) but only to http(s), never file:// etc.
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, o.max_redirects);
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(o.connect_timeout.count()));
  // Less than one byte a second for stall_timeout seconds is a stall (a backstop to on_progress).
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::max<std::int64_t>(1, o.stall_timeout.count())));
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024L);
  // Proxies: libcurl reads http_proxy/https_proxy/no_proxy from the environment by default.
  if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
}

Attempt failed(Attempt::Outcome outcome, Error error) {
  Attempt a;
  a.outcome = outcome;
  a.error = std::move(error);
  return a;
}

Attempt from_status(Transfer& t, long status) {
  if (status == 416) {
    // Nothing after our offset: the partial may already be the whole file.
    auto range = parse_content_range(t.content_range);
    if (range && range->total && *range->total == t.partial.size) {
      Attempt a;
      a.expected_total = range->total;
      return a;
    }
    spdlog::info("{}: range not satisfiable at byte {}; starting again", t.url, t.partial.size);
    return failed(Attempt::Outcome::restart, Error{ErrorKind::network, "range not satisfiable", {}, {}});
  }
  Error error{ErrorKind::network, fmt::format("Server answered HTTP {} for {}", status, t.url), {}, {}};
  if (classify_http_status(status) == Verdict::next_source) {
    spdlog::info("{}: HTTP {}; trying the next source", t.url, status);
    return failed(Attempt::Outcome::next_source, std::move(error));
  }
  Attempt a = failed(Attempt::Outcome::retry, std::move(error));
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(t.curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
    a.retry_after = std::chrono::seconds(retry_after);
  }
  spdlog::info("{}: HTTP {} (transient{})", t.url, status, a.retry_after ? fmt::format(", Retry-After {} s", a.retry_after->count()) : "");
  return a;
}

Attempt from_transport(Transfer& t, CURLcode rc, const char* errors) {
  std::string detail = errors[0] != '\0' ? errors : curl_easy_strerror(rc);
  spdlog::info("{}: transfer failed: {} (curl {})", t.url, detail, static_cast<int>(rc));
  if (is_tls_verification_failure(rc)) {
    return failed(Attempt::Outcome::next_source, Error{ErrorKind::network,
                                                       fmt::format("Could not verify the TLS certificate of {}: {}", t.url, detail),
                                                       "If a proxy or firewall inspects HTTPS here, pass its CA certificate with --cacert FILE "
                                                       "(or set CURL_CA_BUNDLE); otherwise the server is not the one it claims to be.",
                                                       {}});
  }
  Error error{ErrorKind::network, fmt::format("Could not download {}: {}", t.url, detail), {}, {}};
  auto verdict = classify_transport(static_cast<int>(rc));
  return failed(verdict == Verdict::retry ? Attempt::Outcome::retry : Attempt::Outcome::next_source, std::move(error));
}

}  // namespace

Attempt http_attempt(const std::string& url, Partial& partial, const Request& request, const Options& options) {
  ensure_curl_initialised();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), &curl_easy_cleanup);
  if (!handle) return failed(Attempt::Outcome::fatal, Error{ErrorKind::internal, "libcurl could not start", {}, {}});
  Transfer t(url, partial, request, options, handle.get());

  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, &curl_slist_free_all);
  std::string range;
  if (partial.size > 0) {
    range = fmt::format("{}-", partial.size);
    curl_easy_setopt(handle.get(), CURLOPT_RANGE, range.c_str());
    // Only a validator from this same URL says anything about the bytes it would send.
    if (partial.validators && partial.validators->url == url && !partial.validators->if_range().empty()) {
      headers.reset(curl_slist_append(nullptr, fmt::format("If-Range: {}", partial.validators->if_range()).c_str()));
    }
    spdlog::info("{}: asking for bytes {}- {}", url, partial.size, headers ? "(If-Range)" : "(no validator)");
  } else {
    spdlog::info("{}: requesting", url);
  }
  char errors[CURL_ERROR_SIZE] = {};
  std::string ca = ca_bundle(options);
  configure(handle.get(), t, errors, ca, headers.get());

  CURLcode rc = curl_easy_perform(handle.get());
  if (rc == CURLE_OK && !t.body_started) begin_body(t);  // an empty body never reached on_body
  if (t.out.is_open()) {
    t.out.flush();
    if (!t.out && !t.fatal) {
      t.fatal = io_error("write", partial.path, std::error_code(errno != 0 ? errno : EIO, std::generic_category()));
    }
    t.out.close();
  }
  long status = 0;
  curl_easy_getinfo(handle.get(), CURLINFO_RESPONSE_CODE, &status);
  spdlog::debug("{}: curl {}, HTTP {}, {} bytes", url, static_cast<int>(rc), status, t.bytes_received);

  Attempt result;
  if (t.fatal) {
    result = failed(Attempt::Outcome::fatal, *t.fatal);
  } else if (t.stop == Transfer::Stop::stalled) {
    spdlog::info("{}: no data for {} s; treating it as a stall", url, options.stall_timeout.count());
    result = failed(Attempt::Outcome::retry,
                    Error{ErrorKind::network, fmt::format("{} sent nothing for {} s", url, options.stall_timeout.count()), {}, {}});
  } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
    result = failed(Attempt::Outcome::fatal, Error{ErrorKind::interrupted,
                                                   fmt::format("Download of {} stopped", url),
                                                   "The bytes received so far are kept; running the command again resumes the download.",
                                                   {}});
  } else if (t.stop == Transfer::Stop::too_large) {
    Error error{ErrorKind::integrity,
                fmt::format("{} sent more than the {} bytes pinned for it; stopped after the first {} bytes", url, *request.size, partial.size),
                {},
                {}};
    add_text_preview(error, partial.path);
    result = failed(Attempt::Outcome::next_source, std::move(error));
    discard_partial(partial);
  } else if (t.stop == Transfer::Stop::over_bound) {
    Error error{ErrorKind::integrity,
                t.expected_total
                    ? fmt::format("{} announces {} bytes, more than the {} an unpinned download may have", url, *t.expected_total, *request.max_size)
                    : fmt::format("{} sent more than the {} bytes an unpinned download may have", url, *request.max_size),
                "If the file really is that large, raise the bound (zcuda install --url ... --max-size BYTES); nothing was kept.",
                {}};
    result = failed(Attempt::Outcome::fatal, std::move(error));
    discard_partial(partial);
  } else if (t.stop == Transfer::Stop::bad_range) {
    result = failed(Attempt::Outcome::restart, Error{ErrorKind::network, "unexpected Content-Range", {}, {}});
  } else if (t.stop == Transfer::Stop::http_status || (rc == CURLE_OK && status != 200 && status != 206)) {
    result = from_status(t, status);
  } else if (rc != CURLE_OK) {
    result = from_transport(t, rc, errors);
  }
  result.appended = t.appended;
  result.bytes_received = t.bytes_received;
  if (!result.expected_total) result.expected_total = t.expected_total;
  if (result.outcome == Attempt::Outcome::complete) t.progress.report(partial.size, request.size ? request.size : result.expected_total, true);
  return result;
}

}  // namespace zcuda::fetch::detail
