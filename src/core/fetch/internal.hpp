#pragma once
// Pieces of the fetch module shared between its source files; not part of the public API.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <curl/curl.h>

#include <zcuda/base/error.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/fetch/rate.hpp>
#include <zcuda/base/sha256.hpp>

namespace zcuda::fetch::detail {

// What a server said about the bytes in a partial download, so a resume can ask "only if it is
// still the same file" (If-Range).
struct Validators {
  std::string url;
  std::string etag;  // strong ETags only; a weak one may not be used with If-Range
  std::string last_modified;
  std::string if_range() const { return etag.empty() ? last_modified : etag; }
};

std::optional<Validators> read_validators(const std::filesystem::path& meta);
Status write_validators(const std::filesystem::path& meta, const Validators& validators);

// The partial download: its bytes are a prefix of some response, and `hasher` has seen exactly
// those bytes.
struct Partial {
  std::filesystem::path path;
  std::filesystem::path meta;
  std::uint64_t size = 0;
  Sha256 hasher;
  std::optional<Validators> validators;
  std::function<void()> on_discard;  // Options::on_discard
};

// Opens the partial left by an earlier run (re-hashing its bytes) or an empty one.
Result<Partial> open_partial(const Cache& cache, const Request& request, const Options& options);
// Deletes the partial's bytes and its validators; the hasher starts over.
void discard_partial(Partial& partial);

// The start of a file as one line when it looks like text (an HTML or JSON error page served in
// place of the file), so it shows itself in an error's notes; nothing for binary bytes, which
// would only read as escapes.
std::optional<std::string> text_preview(const std::filesystem::path& file);
// The note that shows a text preview, when there is one.
void add_text_preview(Error& error, const std::filesystem::path& file);

// The pinned digest matched bytes of another length: the manifest's size is wrong.
Error wrong_size_pin_error(const Request& request, const std::string& source, std::uint64_t actual_size);

// Throttled calls of Options::on_progress with a running rate.
class ProgressReporter {
 public:
  ProgressReporter(const Options& options, std::string url) : options_(options), url_(std::move(url)) {}
  void report(std::uint64_t received, std::optional<std::uint64_t> total, bool force = false);

 private:
  const Options& options_;
  std::string url_;
  RateMeter meter_;
  std::optional<RateMeter::Clock::time_point> last_call_;
};

bool cancelled(const Options& options);

// The CA file libcurl is given: --cacert, else CURL_CA_BUNDLE, else (portable build) the first
// system file found; empty for libcurl's default.
std::string ca_bundle(const Options& options);

// curl_global_init, once per process, before the first handle (it is not thread-safe).
void ensure_curl_initialised();

// What every zcuda request sets on a handle: its user agent, http and https only, the CA file
// (`ca`, empty for libcurl's default) and the TLS options this libcurl's backend needs.
void set_transport_options(CURL* handle, const std::string& ca);

// The result of one attempt at one source.
struct Attempt {
  enum class Outcome {
    complete,     // the response ended normally; the partial now holds it (still unverified)
    retry,        // transient failure: same source again after a pause
    restart,      // the partial cannot be continued: start again from zero, no pause
    next_source,  // this source will not serve the file
    fatal,        // stop everything (disk error, interrupted)
  };
  Outcome outcome = Outcome::complete;
  Error error;
  std::optional<std::chrono::seconds> retry_after;
  std::optional<std::uint64_t> expected_total;  // size the server announced, when it did
  bool appended = false;                        // bytes were added to an earlier partial (206)
  std::uint64_t bytes_received = 0;             // body bytes of this attempt
};

// One HTTP(S) request for the rest of the file (Range + If-Range when the partial is not empty).
Attempt http_attempt(const std::string& url, Partial& partial, const Request& request, const Options& options);

// Copies a local file into the partial, hashing it on the way.
Attempt local_copy(const std::filesystem::path& source, const std::string& label, Partial& partial, const Request& request, const Options& options);

// The local path a file:// URL names, or an error for a URL that does not name one.
Result<std::filesystem::path> path_of_file_url(const std::string& url);

std::string utf8(const std::filesystem::path& path);

}  // namespace zcuda::fetch::detail
