#include "zip_directory.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::archive::detail {

namespace fs = std::filesystem;

namespace {

std::uint64_t le(const std::string& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

class File {
 public:
  explicit File(const fs::path& path) : in_(path, std::ios::binary) {}
  bool ok() const { return static_cast<bool>(in_); }
  // `n` bytes at `offset`; fewer (or none) past the end.
  std::string at(std::uint64_t offset, std::size_t n) {
    std::string b(n, '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(b.data(), static_cast<std::streamsize>(n));
    b.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in_.gcount())));
    return b;
  }

 private:
  std::ifstream in_;
};

Error damaged(const fs::path& file, const std::string& why) {
  Error e{ErrorKind::integrity,
          fmt::format("Could not read the archive {}: {}", file.filename(), why),
          "The file is damaged; delete it from the cache and run the command again.",
          {}};
  e.notes.push_back(fmt::format("archive: {}", file));
  return e;
}

}  // namespace

Result<CentralDirectory> read_central_directory(const fs::path& file) {
  std::error_code ec;
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) return std::unexpected(io_error("read the size of", file, ec));
  File in(file);
  if (!in.ok()) return std::unexpected(io_error("open", file, std::make_error_code(std::errc::io_error)));

  // The end record: the last signature within its 22 bytes plus a comment of up to 64 KiB.
  const std::uint64_t tail_start = size > 22 + 65535 ? size - (22 + 65535) : 0;
  const std::string tail = in.at(tail_start, static_cast<std::size_t>(size - tail_start));
  std::size_t end = std::string::npos;
  for (std::size_t i = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; i-- > 0;) {
    if (le(tail, i, 4) == 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end == std::string::npos) return std::unexpected(damaged(file, "no end of central directory record"));
  std::uint64_t count = le(tail, end + 10, 2);
  std::uint64_t cd_size = le(tail, end + 12, 4);
  std::uint64_t cd_offset = le(tail, end + 16, 4);
  if (count == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) {
    // Zip64: the locator sits just before the end record and points at the zip64 end record.
    const std::uint64_t end_at = tail_start + end;
    if (end_at < 20) return std::unexpected(damaged(file, "no zip64 end of central directory locator"));
    const std::string locator = in.at(end_at - 20, 20);
    if (locator.size() < 20 || le(locator, 0, 4) != 0x07064b50) return std::unexpected(damaged(file, "no zip64 end of central directory locator"));
    const std::string end64 = in.at(le(locator, 8, 8), 56);
    if (end64.size() < 56 || le(end64, 0, 4) != 0x06064b50) return std::unexpected(damaged(file, "no zip64 end of central directory record"));
    count = le(end64, 32, 8);
    cd_size = le(end64, 40, 8);
    cd_offset = le(end64, 48, 8);
  }
  if (cd_offset > size || cd_size > size - cd_offset) return std::unexpected(damaged(file, "the central directory lies outside the file"));
  const std::string cd = in.at(cd_offset, static_cast<std::size_t>(cd_size));

  CentralDirectory out;
  std::size_t at = 0;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (at + 46 > cd.size() || le(cd, at, 4) != 0x02014b50) return std::unexpected(damaged(file, "a central directory record is cut short"));
    CentralEntry e;
    const auto made_by_os = le(cd, at + 5, 1);
    e.crc = static_cast<std::uint32_t>(le(cd, at + 16, 4));
    std::uint64_t csize = le(cd, at + 20, 4);
    e.size = le(cd, at + 24, 4);
    const std::size_t name_len = static_cast<std::size_t>(le(cd, at + 28, 2));
    const std::size_t extra_len = static_cast<std::size_t>(le(cd, at + 30, 2));
    const std::size_t comment_len = static_cast<std::size_t>(le(cd, at + 32, 2));
    const auto external = le(cd, at + 38, 4);
    std::uint64_t local = le(cd, at + 42, 4);
    if (at + 46 + name_len + extra_len + comment_len > cd.size()) return std::unexpected(damaged(file, "a central directory record is cut short"));
    e.name = cd.substr(at + 46, name_len);
    // Zip64 extra field: the 8-byte values of the fields that hold 0xffffffff, in this order.
    for (std::size_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
      const auto id = le(cd, x, 2);
      const auto len = static_cast<std::size_t>(le(cd, x + 2, 2));
      if (id == 0x0001) {
        std::size_t v = x + 4;
        if (e.size == 0xffffffff && v + 8 <= x + 4 + len) {
          e.size = le(cd, v, 8);
          v += 8;
        }
        if (csize == 0xffffffff && v + 8 <= x + 4 + len) {
          csize = le(cd, v, 8);
          v += 8;
        }
        if (local == 0xffffffff && v + 8 <= x + 4 + len) {
          local = le(cd, v, 8);
        }
      }
      x += 4 + len;
    }
    const auto mode = (external >> 16) & 0170000;
    e.directory = e.name.ends_with('/') || (made_by_os == 3 && mode == 0040000);
    e.symlink = made_by_os == 3 && mode == 0120000;
    at += 46 + name_len + extra_len + comment_len;

    // The local header this record points at.
    if (out.problem.empty()) {
      const std::string lh = in.at(local, 30);
      if (lh.size() < 30 || le(lh, 0, 4) != 0x04034b50) {
        out.problem_entry = e.name;
        out.problem = "has no local header where the central directory says";
      } else {
        const auto flags = le(lh, 6, 2);
        const std::size_t lname_len = static_cast<std::size_t>(le(lh, 26, 2));
        const std::size_t lextra_len = static_cast<std::size_t>(le(lh, 28, 2));
        const std::string lname = in.at(local + 30, lname_len);
        std::uint32_t lcrc = static_cast<std::uint32_t>(le(lh, 14, 4));
        std::uint64_t lsize = le(lh, 22, 4);
        if (flags & 0x8) {
          // The CRC and sizes follow the data, in a descriptor (signature optional).
          const std::string d = in.at(local + 30 + lname_len + lextra_len + csize, 12);
          if (d.size() >= 8) {
            const std::size_t s = le(d, 0, 4) == 0x08074b50 ? 4 : 0;
            lcrc = static_cast<std::uint32_t>(le(d, s, 4));
          }
          lsize = e.size;  // the descriptor's size width depends on zip64; the CRC decides
        } else if (lsize == 0xffffffff) {
          lsize = e.size;  // zip64: the local extra field holds it; the CRC decides
        }
        if (lname != e.name) {
          out.problem_entry = e.name;
          out.problem = fmt::format("is named \"{}\" in its local header: the zip's central directory and local headers disagree", lname);
        } else if (lcrc != e.crc || lsize != e.size) {
          out.problem_entry = e.name;
          out.problem = "has another CRC-32 or size in its local header than in the central directory";
        }
      }
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace zcuda::archive::detail
