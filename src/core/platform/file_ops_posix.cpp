#include <zcuda/platform/file_ops.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

namespace fs = std::filesystem;

Result<PlaceMethod> link_or_copy(const fs::path& source, const fs::path& target) {
  if (::link(source.c_str(), target.c_str()) == 0) return PlaceMethod::hard_link;
  const int e = errno;
  // Other volume, a file system without hard links, or the link-count limit: copy instead.
  if (e != EXDEV && e != EPERM && e != EMLINK && e != ENOTSUP && e != EOPNOTSUPP) {
    return std::unexpected(io_error("link", target, std::error_code(e, std::generic_category())).with_note(fmt::format("source: {}", source)));
  }
  std::error_code ec;
  fs::copy_file(source, target, fs::copy_options::none, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(target, ignored);
    return std::unexpected(io_error("copy", source, ec).with_note(fmt::format("target: {}", target)));
  }
  return PlaceMethod::copy;
}

Status check_replaceable(const fs::path&) { return {}; }

Result<FileIdentity> file_identity(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::unexpected(io_error("stat", file, std::error_code(errno, std::generic_category())));
  FileIdentity id;
  id.volume = static_cast<std::uint64_t>(st.st_dev);
  id.index = static_cast<std::uint64_t>(st.st_ino);
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
  return id;
}

bool same_file(const FileIdentity& a, const FileIdentity& b) { return a.volume == b.volume && a.index == b.index; }

bool is_link(const fs::path& path) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(path, ec));
}

}  // namespace zcuda::platform
