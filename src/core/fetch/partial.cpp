// The partial download beside the cache: its validators (for If-Range), re-hashing it on resume,
// the text preview an error shows, and the error of a wrong size pin.
#include <algorithm>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

#include "internal.hpp"

namespace zcuda::fetch::detail {

namespace fs = std::filesystem;

std::string utf8(const fs::path& path) {
  auto text = path.u8string();
  return std::string(reinterpret_cast<const char*>(text.data()), text.size());
}

std::optional<Validators> read_validators(const fs::path& meta) {
  auto text = platform::read_file(meta, 64u << 10);
  if (!text) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  Validators v;
  v.url = json.value("url", "");
  v.etag = json.value("etag", "");
  v.last_modified = json.value("last_modified", "");
  return v;
}

Status write_validators(const fs::path& meta, const Validators& v) {
  nlohmann::json json = {{"url", v.url}, {"etag", v.etag}, {"last_modified", v.last_modified}};
  return platform::write_file_atomic(meta, json_text(json) + "\n");
}

Result<Partial> open_partial(const Cache& cache, const Request& request, const Options& options) {
  Partial partial;
  partial.path = cache.partial_path(request.sha256);
  partial.meta = cache.partial_meta_path(request.sha256);
  partial.on_discard = options.on_discard;
  std::error_code ec;
  if (!fs::exists(partial.path, ec)) {
    fs::remove(partial.meta, ec);
    return partial;
  }
  auto size = fs::file_size(partial.path, ec);
  if (ec) return std::unexpected(io_error("read the size of", partial.path, ec));
  if (request.size && size > *request.size) {
    spdlog::info("discarding {}: it holds {} bytes, more than the {} pinned", partial.path, size, *request.size);
    discard_partial(partial);
    return partial;
  }
  // The bytes on disk are the truth: hash them again rather than trusting a saved state.
  std::ifstream in(partial.path, std::ios::binary);
  if (!in) return std::unexpected(io_error("read", partial.path, std::error_code(errno, std::generic_category())));
  std::vector<char> buffer(1u << 20);
  std::uint64_t hashed = 0;
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    auto n = static_cast<std::size_t>(in.gcount());
    partial.hasher.update(buffer.data(), n);
    hashed += n;
    if (cancelled(options)) return fail(ErrorKind::interrupted, "Stopped while checking the partial download");
  }
  if (in.bad()) return std::unexpected(io_error("read", partial.path, std::error_code(errno, std::generic_category())));
  partial.size = hashed;
  partial.validators = read_validators(partial.meta);
  spdlog::info("resuming {}: {} bytes already there", partial.path, partial.size);
  return partial;
}

void discard_partial(Partial& partial) {
  if (partial.on_discard) partial.on_discard();
  std::error_code ec;
  fs::remove(partial.path, ec);
  fs::remove(partial.meta, ec);
  partial.size = 0;
  partial.hasher.reset();
  partial.validators.reset();
}

namespace {

// Length of the UTF-8 sequence a lead byte starts, or 0 for a byte that cannot start one.
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

}  // namespace

std::optional<std::string> text_preview(const fs::path& file) {
  constexpr std::size_t kRead = 256, kShown = 120;
  std::ifstream in(file, std::ios::binary);
  std::string bytes(kRead, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  std::string line;
  bool space = false;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      space = !line.empty();
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7f) return std::nullopt;  // control bytes: not text
    const std::size_t length = sequence_length(c);
    if (length == 0) return std::nullopt;
    if (i + length > bytes.size()) break;  // a character cut by the read: text so far
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xc0) != 0x80) return std::nullopt;
    }
    if (line.size() + length > kShown) {
      line += "…";
      return line;
    }
    if (space) line += ' ';
    space = false;
    line.append(bytes, i, length);
    i += length;
  }
  if (line.empty()) return std::nullopt;
  return line;
}

void add_text_preview(Error& error, const fs::path& file) {
  if (auto text = text_preview(file)) error.notes.push_back(fmt::format("the response begins: {}", *text));
}

Error wrong_size_pin_error(const Request& request, const std::string& source, std::uint64_t actual_size) {
  return Error{ErrorKind::invalid_input,
               fmt::format("The manifest is wrong: it pins {} at {} bytes, but the file from {} has its SHA-256 {} and "
                           "{} bytes",
                           request.file_name.empty() ? std::string("the file") : request.file_name, request.size.value_or(0), source, request.sha256,
                           actual_size),
               "The digest matches, so the file is the one pinned and only the manifest's size is wrong: correct "
               "\"size\" in the manifest (docs/manifest-format.md) or report it.",
               {}};
}

void ProgressReporter::report(std::uint64_t received, std::optional<std::uint64_t> total, bool force) {
  if (!options_.on_progress) return;
  auto now = RateMeter::Clock::now();
  double rate = meter_.update(received, now);
  // A terminal redraw ten times a second is plenty; the final call always goes through.
  if (!force && last_call_ && now - *last_call_ < std::chrono::milliseconds(100)) return;
  last_call_ = now;
  options_.on_progress(Progress{received, total, rate, url_});
}

bool cancelled(const Options& options) { return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed); }

}  // namespace zcuda::fetch::detail
