// Local sources: file:// URLs and the offline folder. The bytes go through the same partial,
// hash and checks as a download; nothing local is trusted unverified.
#include <fstream>
#include <memory>
#include <system_error>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

#include "internal.hpp"

namespace zcuda::fetch::detail {

namespace fs = std::filesystem;

Result<fs::path> path_of_file_url(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> parsed(curl_url(), &curl_url_cleanup);
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
    return fail(ErrorKind::invalid_input, fmt::format("{} is not a valid URL", url));
  }
  char* host = nullptr;
  if (curl_url_get(parsed.get(), CURLUPART_HOST, &host, 0) == CURLUE_OK && host != nullptr) {
    std::string name = host;
    curl_free(host);
    if (!name.empty() && name != "localhost") {
      return fail(ErrorKind::unsupported, fmt::format("{} names another host; file:// URLs must be local", url),
                  "Mount the share and use a local path, or use --from DIR.");
    }
  }
  char* path = nullptr;
  if (curl_url_get(parsed.get(), CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK || path == nullptr) {
    return fail(ErrorKind::invalid_input, fmt::format("{} names no file", url));
  }
  std::string text = path;
  curl_free(path);
  // file:///C:/dir/x decodes to "/C:/dir/x"; Windows wants "C:/dir/x".
  if (platform::current_os() == platform::Os::windows && text.size() >= 3 && text[0] == '/' && text[2] == ':') {
    text.erase(0, 1);
  }
  return path_from_utf8(text);
}

Attempt local_copy(const fs::path& source, const std::string& label, Partial& partial, const Request& request, const Options& options) {
  Attempt attempt;
  std::ifstream in(source, std::ios::binary);
  if (!in) {
    std::error_code ec(errno, std::generic_category());
    attempt.outcome = Attempt::Outcome::next_source;
    attempt.error = ec == std::errc::no_such_file_or_directory ? Error{ErrorKind::not_found, fmt::format("{} does not exist", source), {}, {}}
                                                               : io_error("read", source, ec);
    return attempt;
  }
  std::error_code ec;
  auto source_size = fs::file_size(source, ec);
  if (!ec) attempt.expected_total = source_size;
  if (!ec && request.size && source_size > *request.size) {
    // A local file costs nothing to hash whole: its digest tells a wrong file from a wrong pin.
    auto digest = sha256_file(source);
    if (!digest && digest.error().kind == ErrorKind::interrupted) {
      attempt.outcome = Attempt::Outcome::fatal;
      attempt.error = digest.error();
      return attempt;
    }
    if (digest && *digest == request.sha256) {
      attempt.outcome = Attempt::Outcome::fatal;
      attempt.error = wrong_size_pin_error(request, label, source_size);
      return attempt;
    }
  }
  spdlog::info("copying {} into the cache", source);

  discard_partial(partial);
  std::ofstream out(partial.path, std::ios::binary | std::ios::trunc);
  if (!out) {
    attempt.outcome = Attempt::Outcome::fatal;
    attempt.error = io_error("write", partial.path, std::error_code(errno, std::generic_category()));
    return attempt;
  }
  ProgressReporter progress(options, label);
  std::vector<char> buffer(1u << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    auto n = static_cast<std::size_t>(in.gcount());
    if (cancelled(options)) {
      attempt.outcome = Attempt::Outcome::fatal;
      attempt.error = Error{ErrorKind::interrupted, fmt::format("Copy of {} stopped", source), {}, {}};
      return attempt;
    }
    if (request.size && partial.size + n > *request.size) {
      attempt.outcome = Attempt::Outcome::next_source;
      attempt.error = Error{ErrorKind::integrity, fmt::format("{} is larger than the {} bytes pinned for it", source, *request.size), {}, {}};
      add_text_preview(attempt.error, source);
      out.close();
      discard_partial(partial);
      return attempt;
    }
    out.write(buffer.data(), static_cast<std::streamsize>(n));
    if (!out) {
      attempt.outcome = Attempt::Outcome::fatal;
      attempt.error = io_error("write", partial.path, std::error_code(errno != 0 ? errno : EIO, std::generic_category()));
      return attempt;
    }
    partial.hasher.update(buffer.data(), n);
    partial.size += n;
    attempt.bytes_received += n;
    progress.report(partial.size, request.size ? request.size : attempt.expected_total);
  }
  if (in.bad()) {
    attempt.outcome = Attempt::Outcome::next_source;
    attempt.error = io_error("read", source, std::error_code(errno, std::generic_category()));
    return attempt;
  }
  out.flush();
  if (!out) {
    attempt.outcome = Attempt::Outcome::fatal;
    attempt.error = io_error("write", partial.path, std::error_code(errno != 0 ? errno : EIO, std::generic_category()));
    return attempt;
  }
  progress.report(partial.size, request.size ? request.size : attempt.expected_total, true);
  return attempt;
}

}  // namespace zcuda::fetch::detail
