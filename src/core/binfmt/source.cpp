// Byte sources, format sniffing, and reading a file's imports.
#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::binfmt {

namespace fs = std::filesystem;

bool MemorySource::read(std::uint64_t offset, std::span<std::byte> out) const {
  if (offset > bytes_.size() || out.size() > bytes_.size() - offset) return false;
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
  return true;
}

namespace {

// Reads on demand from an open file; the size is fixed when opened. The parsers ask for one
// header or table entry at a time, so reads go through a window of the file: a seek and a read
// per entry cost hundreds of system calls for one small program. The first window is small, since
// a format check reads a header and a table or two (run's first-run scan reads every library
// beside a program); each window read after it doubles, up to 64 KiB, for parsers that walk a
// table across the file.
class FileSource final : public ByteSource {
 public:
  FileSource(std::ifstream& in, std::uint64_t size) : in_(in), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > size_ || out.size() > size_ - offset) return false;
    if (out.size() > kLargestWindow) return read_file(offset, out);
    if (window_size_ == 0 || offset < window_at_ || offset + out.size() > window_at_ + window_size_) {
      next_window_ = next_window_ == 0 ? kFirstWindow : std::min(next_window_ * 2, kLargestWindow);
      window_size_ = static_cast<std::size_t>(std::min<std::uint64_t>(std::max(next_window_, out.size()), size_ - offset));
      if (window_.size() < window_size_) window_.resize(window_size_);
      window_at_ = offset;
      if (!read_file(offset, std::span(window_).first(window_size_))) {
        window_size_ = 0;
        return false;
      }
    }
    if (!out.empty()) std::memcpy(out.data(), window_.data() + (offset - window_at_), out.size());
    return true;
  }

 private:
  static constexpr std::size_t kFirstWindow = 4 * 1024;
  static constexpr std::size_t kLargestWindow = 64 * 1024;

  bool read_file(std::uint64_t offset, std::span<std::byte> out) const {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
    return static_cast<std::size_t>(in_.gcount()) == out.size();
  }

  std::ifstream& in_;
  std::uint64_t size_;
  mutable std::vector<std::byte> window_;  // grows, never shrinks: no zeroing per window
  mutable std::size_t window_size_ = 0;    // how much of window_ holds the file from window_at_
  mutable std::size_t next_window_ = 0;
  mutable std::uint64_t window_at_ = 0;
};

}  // namespace

std::optional<Format> sniff(const ByteSource& source) {
  std::array<std::byte, 4> magic{};
  if (!source.read(0, magic)) return std::nullopt;
  auto at = [&](std::size_t i) { return std::to_integer<unsigned char>(magic[i]); };
  if (at(0) == 0x7f && at(1) == 'E' && at(2) == 'L' && at(3) == 'F') return Format::elf;
  if (at(0) == 'M' && at(1) == 'Z') return Format::pe;
  return std::nullopt;
}

Result<Imports> parse(const ByteSource& source) {
  switch (sniff(source).value_or(Format::pe)) {
    case Format::elf:
      return parse_elf(source);
    case Format::pe:
      if (sniff(source)) return parse_pe(source);
      break;
  }
  return fail(ErrorKind::invalid_input, "Not a PE or ELF file");
}

Result<std::optional<Imports>> read_imports(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return std::unexpected(io_error("read", file, ec));
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(io_error("open", file, std::error_code(errno, std::generic_category())));
  FileSource source(in, size);
  if (!sniff(source)) return std::optional<Imports>{};
  auto imports = parse(source);
  if (!imports) {
    Error error = std::move(imports.error());
    error.message = fmt::format("{}: {}", file, error.message);
    return std::unexpected(std::move(error));
  }
  return std::optional<Imports>(std::move(*imports));
}

namespace {

// Runs `read` over the file's bytes; its errors name the file.
template <class Read>
auto read_file_with(const fs::path& file, Read&& read) -> decltype(read(std::declval<const ByteSource&>())) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return std::unexpected(io_error("read", file, ec));
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(io_error("open", file, std::error_code(errno, std::generic_category())));
  FileSource source(in, size);
  auto found = read(source);
  if (!found) {
    Error error = std::move(found.error());
    error.message = fmt::format("{}: {}", file, error.message);
    return std::unexpected(std::move(error));
  }
  return found;
}

}  // namespace

Result<bool> file_has_fatbin(const fs::path& file) {
  return read_file_with(file, [](const ByteSource& s) { return has_fatbin(s); });
}

Result<std::vector<FatbinImage>> file_fatbin_images(const fs::path& file) {
  return read_file_with(file, [](const ByteSource& s) { return fatbin_images(s); });
}

}  // namespace zcuda::binfmt
