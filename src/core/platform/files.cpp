#include <zcuda/platform/files.hpp>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#ifdef _WIN32
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

}  // namespace zcuda::platform
