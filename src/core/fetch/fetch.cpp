// The fetch flow: a verified cache hit, else each source in order (offline folder, or the URL
// and its mirrors) with retries, then verification and the rename into the cache.
#include <zcuda/fetch/fetch.hpp>

#include <random>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/fetch/retry.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>

#include "internal.hpp"

namespace zcuda::fetch {

namespace fs = std::filesystem;
using detail::Attempt;
using detail::Partial;

namespace {

struct SourceFailure {
  Error error;
  bool fatal = false;  // stop here; do not try further sources
  std::string brief;   // what this source did, for an error that sums up several sources
};
using SourceResult = std::expected<Fetched, SourceFailure>;

std::unexpected<SourceFailure> source_failed(Error error, bool fatal = false, std::string brief = {}) {
  if (brief.empty()) brief = error.message;
  return std::unexpected(SourceFailure{std::move(error), fatal, std::move(brief)});
}

std::string describe_size(std::uint64_t bytes) { return fmt::format("{} bytes", bytes); }

Error incomplete_error(const std::string& url, std::uint64_t got, std::uint64_t total) {
  return Error{ErrorKind::incomplete,
               fmt::format("incomplete download: got {} of {} bytes from {}; run again to resume", got, total, url),
               "The bytes received so far are kept; check the network or proxy if it keeps stopping.",
               {}};
}

// A source that delivered all it has, fewer bytes than pinned: a truncated copy (or an error page
// served as the file), which asking it again will not mend.
SourceFailure short_copy_failure(const std::string& source, const Partial& partial, std::uint64_t pinned) {
  Error error{ErrorKind::incomplete,
              fmt::format("incomplete: {} of {} bytes from {}: the copy there ends early", partial.size, pinned, source),
              "That source holds a truncated file; another mirror, or the same one later, may hold the whole file.",
              {}};
  detail::add_text_preview(error, partial.path);
  return SourceFailure{std::move(error), false, fmt::format("incomplete: {} of {} bytes (the copy there ends early)", partial.size, pinned)};
}

SourceFailure mismatch_failure(const std::string& source, const Request& request, const std::string& actual, const Partial& partial) {
  std::string expected = request.sha256;
  if (request.size) expected += fmt::format(" ({})", describe_size(*request.size));
  Error error{ErrorKind::integrity,
              fmt::format("SHA-256 mismatch for {}: expected {}, got {} ({})", source, expected, actual, describe_size(partial.size)),
              {},
              {}};
  detail::add_text_preview(error, partial.path);
  return SourceFailure{std::move(error), false, fmt::format("SHA-256 mismatch: got {} ({})", actual, describe_size(partial.size))};
}

// Sleeps in small steps so that Ctrl-C is not held up by a long Retry-After.
bool sleep_unless_cancelled(std::chrono::milliseconds delay, const Options& options) {
  auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
    if (detail::cancelled(options)) return false;
    auto left = until - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(50)));
  }
  return !detail::cancelled(options);
}

Error interrupted_error() {
  return Error{ErrorKind::interrupted, "Download stopped", "The bytes received so far are kept; running the command again resumes the download.", {}};
}

Result<Fetched> commit(Partial& partial, const Cache& cache, const Request& request, std::string source, std::uint64_t transferred,
                       std::uint64_t resumed_from) {
  fs::path target = cache.verified_path(request.sha256);
  if (auto renamed = platform::rename_with_retry(partial.path, target); !renamed) return std::unexpected(renamed.error());
  std::error_code ec;
  fs::remove(partial.meta, ec);
  spdlog::info("verified {} ({} bytes) from {}", target, partial.size, source);
  return Fetched{target, false, std::move(source), transferred, resumed_from, partial.size};
}

// Checks a completed partial. Returns the Fetched on success, or the failure for this source.
SourceResult verify_and_commit(Partial& partial, const Cache& cache, const Request& request, const std::string& source, std::uint64_t transferred,
                               std::uint64_t resumed_from) {
  const std::string actual = partial.hasher.hex_digest();
  const bool digest_matches = actual == request.sha256;
  if (digest_matches && (!request.size || partial.size == *request.size)) {
    auto done = commit(partial, cache, request, source, transferred, resumed_from);
    if (!done) return source_failed(done.error(), true);
    return *done;
  }
  SourceFailure failure;
  if (digest_matches) {
    // Bytes with the pinned digest are the pinned file; no other source can have other bytes.
    failure = SourceFailure{detail::wrong_size_pin_error(request, source, partial.size), true, {}};
    failure.brief = failure.error.message;
  } else if (request.size && partial.size < *request.size) {
    failure = short_copy_failure(source, partial, *request.size);
  } else {
    failure = mismatch_failure(source, request, actual, partial);
  }
  spdlog::warn("{}", failure.error.message);
  detail::discard_partial(partial);  // never leave bytes that failed verification behind
  return std::unexpected(std::move(failure));
}

SourceResult try_http_source(const std::string& url, Partial& partial, const Cache& cache, const Request& request, const Options& options) {
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uint64_t transferred = 0;
  std::uint64_t resumed_from = partial.size;
  bool assembled = partial.size > 0;  // the partial holds bytes from an earlier response
  bool retried_from_zero = false;
  int retries = 0;
  std::optional<Error> last_error;
  std::optional<std::uint64_t> last_total;

  for (int attempt_no = 1; attempt_no <= std::max(1, options.max_attempts_per_source); ++attempt_no) {
    if (detail::cancelled(options)) return source_failed(interrupted_error(), true);
    spdlog::info("{}: attempt {} of {}", url, attempt_no, options.max_attempts_per_source);
    Attempt a = detail::http_attempt(url, partial, request, options);
    transferred += a.bytes_received;
    if (a.expected_total) last_total = a.expected_total;
    // A fresh 200 replaced whatever the partial held before.
    if (!a.appended && (a.bytes_received > 0 || partial.size == 0)) resumed_from = 0;
    if (a.outcome == Attempt::Outcome::complete) {
      if (!a.appended) assembled = false;
      if (request.size && partial.size < *request.size && !a.expected_total) {
        // No Content-Length and fewer bytes than pinned: the connection ended early.
        a.outcome = Attempt::Outcome::retry;
        a.error = incomplete_error(url, partial.size, *request.size);
      }
    }
    if (a.outcome == Attempt::Outcome::complete) {
      auto verified = verify_and_commit(partial, cache, request, url, transferred, a.appended ? resumed_from : 0);
      if (verified || verified.error().fatal) return verified;
      if (assembled && !retried_from_zero) {
        // The partial came from an earlier response (another run, another mirror, or a file that
        // changed without validators); give this source one clean try before blaming it.
        spdlog::info("{}: resumed download failed verification; trying once more from zero", url);
        retried_from_zero = true;
        assembled = false;
        resumed_from = 0;
        last_error = verified.error().error;
        continue;
      }
      return verified;
    }
    switch (a.outcome) {
      case Attempt::Outcome::restart:
        detail::discard_partial(partial);
        assembled = false;
        resumed_from = 0;
        last_error = a.error;
        continue;
      case Attempt::Outcome::next_source:
        return source_failed(std::move(a.error));
      case Attempt::Outcome::fatal:
        return source_failed(std::move(a.error), true);
      case Attempt::Outcome::retry:
      case Attempt::Outcome::complete:
        break;
    }
    assembled = partial.size > 0;
    last_error = a.error;
    if (attempt_no < options.max_attempts_per_source) {
      auto delay = backoff_delay(++retries, options.initial_backoff, options.max_backoff, a.retry_after, options.max_retry_after, unit(random));
      spdlog::info("{}: retrying in {} ms", url, delay.count());
      if (!sleep_unless_cancelled(delay, options)) return source_failed(interrupted_error(), true);
    }
  }
  // Out of attempts. Bytes that arrived are kept, so say how far it got.
  std::optional<std::uint64_t> total = request.size ? request.size : last_total;
  if (transferred > 0 && partial.size > 0 && total && partial.size < *total) {
    Error error = incomplete_error(url, partial.size, *total);
    if (last_error) error.notes.push_back(fmt::format("last failure: {}", last_error->message));
    return source_failed(std::move(error));
  }
  return source_failed(last_error.value_or(Error{ErrorKind::network, fmt::format("Could not download {}", url), {}, {}}));
}

SourceResult try_local_source(const fs::path& file, const std::string& label, Partial& partial, const Cache& cache, const Request& request,
                              const Options& options) {
  Attempt a = detail::local_copy(file, label, partial, request, options);
  if (a.outcome == Attempt::Outcome::fatal) return source_failed(std::move(a.error), true);
  if (a.outcome != Attempt::Outcome::complete) return source_failed(std::move(a.error));
  return verify_and_commit(partial, cache, request, label, a.bytes_received, 0);
}

Result<std::optional<Fetched>> check_cached(const Cache& cache, const Request& request) {
  fs::path file = cache.verified_path(request.sha256);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<Fetched>();
  auto size = fs::file_size(file, ec);
  if (ec) return std::unexpected(io_error("read the size of", file, ec));
  auto digest = sha256_file(file);
  if (!digest) return std::unexpected(digest.error());
  const bool digest_matches = *digest == request.sha256;
  if (digest_matches && request.size && size != *request.size) {
    // The cached file is the pinned one (it was verified when it arrived); the pin is not.
    return std::unexpected(detail::wrong_size_pin_error(request, detail::utf8(file), size));
  }
  if (digest_matches) {
    spdlog::info("{} is in the cache and verified", file);
    return std::optional<Fetched>(Fetched{file, true, detail::utf8(file), 0, 0, size});
  }
  spdlog::warn("cached file {} does not match its digest; deleting it and fetching again", file);
  fs::remove(file, ec);
  if (ec) return std::unexpected(io_error("delete the damaged cache file", file, ec));
  return std::optional<Fetched>();
}

Status check_free_space(const Cache& cache, const Request& request, std::uint64_t have) {
  if (!request.size || *request.size <= have) return {};
  std::uint64_t needed = *request.size - have;
  std::error_code ec;
  auto space = fs::space(cache.folder(), ec);
  if (ec) {
    spdlog::debug("could not read the free space of {}: {}", cache.folder(), ec.message());
    return {};
  }
  if (space.available >= needed) return {};
  return fail(
      ErrorKind::io,
      fmt::format("Not enough free space in {}: the download needs {} more, {} is available", cache.folder(), format_bytes(needed),
                  format_bytes(space.available)),
      fmt::format("Free at least {} there (or choose another home with --home) and run the command again.", format_bytes(needed - space.available)));
}

int severity(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::integrity:
      return 3;  // the security-relevant failure must not be hidden
    case ErrorKind::incomplete:
      return 2;
    case ErrorKind::network:
      return 1;
    default:
      return 0;
  }
}

struct Failed {
  std::string source;
  SourceFailure failure;
};

// One source's error as it is, or, for several, one message that names the pinned file once and
// a note per source with what it did.
Error combine(std::vector<Failed> failures, const Request& request) {
  std::size_t chosen = 0;
  for (std::size_t i = 1; i < failures.size(); ++i) {
    if (severity(failures[i].failure.error.kind) > severity(failures[chosen].failure.error.kind)) chosen = i;
  }
  Error error = failures[chosen].failure.error;
  if (failures.size() > 1) {
    std::string pinned = request.sha256;
    if (request.size) pinned += fmt::format(", {}", describe_size(*request.size));
    error.message = fmt::format("None of the {} sources gave {} (SHA-256 {})", failures.size(),
                                request.file_name.empty() ? std::string("the file") : request.file_name, pinned);
    error.notes.clear();
    for (const auto& [source, failure] : failures) {
      error.notes.push_back(fmt::format("{}: {}", source, failure.brief));
      for (const auto& note : failure.error.notes) error.notes.push_back(fmt::format("{}: {}", source, note));
    }
  }
  if (error.hint.empty()) {
    switch (error.kind) {
      case ErrorKind::integrity:
        error.hint =
            "The bytes that failed verification were deleted. If the release was replaced upstream, "
            "the manifest's pin must be updated; otherwise try again later or use another mirror.";
        break;
      case ErrorKind::network:
        error.hint =
            "Check the network and proxy settings (https_proxy, no_proxy), or download the file "
            "elsewhere and use --from DIR.";
        break;
      default:
        break;
    }
  }
  return error;
}

Result<Fetched> fetch_offline(const fs::path& folder, Partial& partial, const Cache& cache, const Request& request, const Options& options) {
  std::vector<fs::path> candidates;
  if (!request.file_name.empty()) candidates.push_back(folder / path_from_utf8(request.file_name).filename());
  candidates.push_back(folder / request.sha256);
  std::vector<Failed> failures;
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    auto label = detail::utf8(candidate);
    auto got = try_local_source(candidate, label, partial, cache, request, options);
    if (got) return *got;
    if (got.error().fatal) return std::unexpected(got.error().error);
    failures.push_back({label, got.error()});
  }
  if (!failures.empty()) return std::unexpected(combine(std::move(failures), request));
  return fail(
      ErrorKind::not_found,
      fmt::format("{} is not in the offline folder {} (looked for {}{})", request.file_name.empty() ? request.sha256 : request.file_name, folder,
                  request.file_name.empty() ? "" : fmt::format("\"{}\" and ", request.file_name), fmt::format("\"{}\"", request.sha256)),
      "Copy the file into that folder under its release name or its SHA-256, or drop --from to download it.");
}

}  // namespace

Result<Fetched> fetch(const Request& request, const Cache& cache, const Options& options) {
  if (!is_sha256_hex(request.sha256)) {
    return fail(ErrorKind::invalid_input, fmt::format("\"{}\" is not a SHA-256 digest", request.sha256),
                "A digest is 64 lowercase hexadecimal digits.");
  }
  if (request.urls.empty() && !options.offline_dir) {
    return fail(ErrorKind::invalid_input, fmt::format("No URL to fetch {} from", request.sha256));
  }
  if (options.ca_bundle && !fs::exists(*options.ca_bundle)) {
    return fail(ErrorKind::not_found, fmt::format("The CA bundle {} does not exist", *options.ca_bundle),
                "Pass a PEM file of trusted certificates with --cacert.");
  }
  std::error_code ec;
  fs::create_directories(cache.folder(), ec);
  if (ec) return std::unexpected(io_error("create the cache folder", cache.folder(), ec));

  auto cached = check_cached(cache, request);
  if (!cached) return std::unexpected(cached.error());
  if (*cached) return **cached;

  auto partial = detail::open_partial(cache, request, options);
  if (!partial) return std::unexpected(partial.error());

  if (options.offline_dir) {
    if (auto space = check_free_space(cache, request, 0); !space) return std::unexpected(space.error());
    return fetch_offline(*options.offline_dir, *partial, cache, request, options);
  }

  // An earlier run may have stopped between the last byte and the rename.
  if (request.size && partial->size == *request.size) {
    auto done = verify_and_commit(*partial, cache, request, detail::utf8(partial->path), 0, partial->size);
    if (done) return *done;
    if (done.error().fatal) return std::unexpected(done.error().error);
  }
  if (auto space = check_free_space(cache, request, partial->size); !space) return std::unexpected(space.error());

  std::vector<Failed> failures;
  for (const auto& url : request.urls) {
    SourceResult got;
    if (url.starts_with("file:")) {
      auto path = detail::path_of_file_url(url);
      got = path ? try_local_source(*path, url, *partial, cache, request, options) : source_failed(path.error());
    } else {
      got = try_http_source(url, *partial, cache, request, options);
    }
    if (got) return *got;
    if (got.error().fatal) return std::unexpected(got.error().error);
    spdlog::info("{} failed: {}", url, got.error().error.message);
    failures.push_back({url, got.error()});
  }
  return std::unexpected(combine(std::move(failures), request));
}

}  // namespace zcuda::fetch
