#include <zcuda/platform/files.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include <zcuda/base/path_format.hpp>

namespace zcuda::platform {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(open_for_reading_error(path, std::error_code(errno, std::generic_category())));
  std::string content;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      return fail(ErrorKind::invalid_input, fmt::format("{} is larger than the {} bytes expected of it", path, max_bytes));
    }
  }
  if (in.bad()) return std::unexpected(io_error("read", path, std::error_code(errno, std::generic_category())));
  return content;
}

namespace {

constexpr std::size_t kHeadBytes = 4;

// Appends a chunk, keeping the head apart and the last `max_bytes` bytes; the buffer is trimmed
// only when it has grown to twice the bound, so trimming costs O(1) per byte.
void keep_tail(StreamTail& out, const char* data, std::size_t n, std::size_t max_bytes) {
  if (out.head.size() < kHeadBytes) out.head.append(data, std::min(n, kHeadBytes - out.head.size()));
  out.total += n;
  out.tail.append(data, n);
  if (out.tail.size() > 2 * max_bytes + 65536) out.tail.erase(0, out.tail.size() - max_bytes);
}

void finish_tail(StreamTail& out, std::size_t max_bytes) {
  if (out.tail.size() > max_bytes) out.tail.erase(0, out.tail.size() - max_bytes);
}

}  // namespace

Result<StreamTail> read_stream_tail(std::FILE* stream, std::size_t max_bytes) {
  StreamTail out;
  std::string buffer(65536, '\0');
  while (true) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), stream);
    if (n > 0) keep_tail(out, buffer.data(), n, max_bytes);
    if (n < buffer.size()) {
      if (std::ferror(stream)) return fail(ErrorKind::io, "Reading standard input failed");
      if (std::feof(stream)) break;
    }
  }
  finish_tail(out, max_bytes);
  return out;
}

Result<StreamTail> read_stdin_tail(std::size_t max_bytes) {
#ifdef _WIN32
  _setmode(_fileno(stdin), _O_BINARY);
#endif
  return read_stream_tail(stdin, max_bytes);
}

std::optional<std::string> non_regular_kind(const fs::path& path, bool& exists) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  exists = fs::exists(status);
  if (!exists || fs::is_regular_file(status)) return std::nullopt;
  switch (status.type()) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

Result<StreamTail> read_file_tail(const fs::path& path, std::size_t max_bytes) {
  bool exists = false;
  if (auto kind = non_regular_kind(path, exists)) return fail(ErrorKind::unsupported, fmt::format("{} is {}, not a regular file", path, *kind));
  if (!exists) return std::unexpected(open_for_reading_error(path, std::make_error_code(std::errc::no_such_file_or_directory)));
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(open_for_reading_error(path, std::error_code(errno, std::generic_category())));
  StreamTail out;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  std::string buffer(65536, '\0');
  if (!ec && size > max_bytes) {  // the head, then a jump to the last max_bytes
    in.read(buffer.data(), kHeadBytes);
    out.head.assign(buffer.data(), static_cast<std::size_t>(in.gcount()));
    in.seekg(static_cast<std::streamoff>(size - max_bytes));
    out.total = size - max_bytes;
  }
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    keep_tail(out, buffer.data(), static_cast<std::size_t>(in.gcount()), max_bytes);
  }
  if (in.bad()) return std::unexpected(io_error("read", path, std::error_code(errno, std::generic_category())));
  finish_tail(out, max_bytes);
  return out;
}

Status rename_with_retry(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  // Antivirus scanners and indexers briefly hold new files open on Windows; a short backoff
  // rides that out (rustup and vcpkg do the same).
  for (int delay_ms : {0, 10, 50, 100, 250, 500, 1000, 2000}) {
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    fs::rename(from, to, ec);
    if (!ec) return {};
    if (ec != std::errc::permission_denied && ec != std::errc::device_or_resource_busy) break;
  }
  return std::unexpected(io_error("rename", from, ec).with_note(fmt::format("target: {}", to)));
}

namespace {
Status flush_to_disk(const fs::path& path) {
#ifdef _WIN32
  HANDLE h = CreateFileW(path.c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return {};
  FlushFileBuffers(h);
  CloseHandle(h);
#else
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  int rc = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  if (rc != 0) return std::unexpected(io_error("flush", path, std::error_code(saved, std::generic_category())));
#endif
  return {};
}
}  // namespace

Status write_file_atomic(const fs::path& path, std::string_view content, Durability durability) {
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) return std::unexpected(io_error("create folder", path.parent_path(), ec));
  }
  fs::path temp = path;
  temp += fmt::format(".tmp-{}", std::chrono::steady_clock::now().time_since_epoch().count());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return std::unexpected(io_error("create", temp, std::error_code(errno, std::generic_category())));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code write_ec(errno, std::generic_category());
      out.close();
      fs::remove(temp, ec);
      return std::unexpected(io_error("write", path, write_ec));
    }
  }
  if (durability == Durability::flushed) {
    if (auto flushed = flush_to_disk(temp); !flushed) {
      fs::remove(temp, ec);
      return flushed;
    }
  }
  if (auto renamed = rename_with_retry(temp, path); !renamed) {
    fs::remove(temp, ec);
    return renamed;
  }
  return {};
}

bool is_dir(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace zcuda::platform
