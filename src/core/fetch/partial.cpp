// The partial download beside the cache: its validators (for If-Range), re-hashing it on resume,
// and the preview shown when a digest does not match.
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <zcuda/core/json_text.hpp>
#include <zcuda/core/path_format.hpp>
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
  std::error_code ec;
  if (!fs::exists(partial.path, ec)) {
    fs::remove(partial.meta, ec);
    return partial;
  }
  auto size = fs::file_size(partial.path, ec);
  if (ec) return std::unexpected(platform::io_error("read the size of", partial.path, ec));
  if (request.size && size > *request.size) {
    spdlog::info("discarding {}: it holds {} bytes, more than the {} pinned", partial.path, size, *request.size);
    discard_partial(partial);
    return partial;
  }
  // The bytes on disk are the truth: hash them again rather than trusting a saved state.
  std::ifstream in(partial.path, std::ios::binary);
  if (!in) return std::unexpected(platform::io_error("read", partial.path, std::error_code(errno, std::generic_category())));
  std::vector<char> buffer(1u << 20);
  std::uint64_t hashed = 0;
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    auto n = static_cast<std::size_t>(in.gcount());
    partial.hasher.update(buffer.data(), n);
    hashed += n;
    if (cancelled(options)) return fail(ErrorKind::interrupted, "Stopped while checking the partial download");
  }
  if (in.bad()) return std::unexpected(platform::io_error("read", partial.path, std::error_code(errno, std::generic_category())));
  partial.size = hashed;
  partial.validators = read_validators(partial.meta);
  spdlog::info("resuming {}: {} bytes already there", partial.path, partial.size);
  return partial;
}

void discard_partial(Partial& partial) {
  std::error_code ec;
  fs::remove(partial.path, ec);
  fs::remove(partial.meta, ec);
  partial.size = 0;
  partial.hasher.reset();
  partial.validators.reset();
}

std::string preview_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char bytes[64];
  in.read(bytes, sizeof bytes);
  std::string out;
  for (std::streamsize i = 0; i < in.gcount(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
    else if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
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

bool cancelled(const Options& options) {
  return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
}

}  // namespace zcuda::fetch::detail
