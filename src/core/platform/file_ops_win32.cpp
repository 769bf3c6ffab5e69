#include <zcuda/platform/file_ops.hpp>

#include <windows.h>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

namespace fs = std::filesystem;

Result<PlaceMethod> link_or_copy(const fs::path& source, const fs::path& target) {
  if (CreateHardLinkW(target.c_str(), source.c_str(), nullptr)) return PlaceMethod::hard_link;
  const DWORD code = GetLastError();
  // ERROR_NOT_SAME_DEVICE (other volume), ERROR_INVALID_FUNCTION (FAT, network shares),
  // ERROR_TOO_MANY_LINKS, ERROR_ACCESS_DENIED on some shares: copy instead.
  if (code == ERROR_ALREADY_EXISTS || code == ERROR_FILE_EXISTS) {
    return fail(ErrorKind::io, fmt::format("Could not place {}: the file already exists", target));
  }
  if (!CopyFileW(source.c_str(), target.c_str(), TRUE)) {
    return std::unexpected(io_error("copy", source, std::error_code(static_cast<int>(GetLastError()), std::system_category()))
                               .with_note(fmt::format("target: {}", target)));
  }
  return PlaceMethod::copy;
}

Status check_replaceable(const fs::path& file) {
  // Opening for write and delete with no sharing fails while a program runs from the file or
  // holds it loaded as a DLL; nothing is changed by the check itself.
  HANDLE h = CreateFileW(file.c_str(), GENERIC_READ | GENERIC_WRITE | DELETE, 0, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h != INVALID_HANDLE_VALUE) {
    CloseHandle(h);
    return {};
  }
  const DWORD code = GetLastError();
  if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) return {};
  if (code == ERROR_SHARING_VIOLATION || code == ERROR_LOCK_VIOLATION) {
    return fail(ErrorKind::locked, fmt::format("{} is in use by a running program", file),
                "Close the program (and anything it started) that runs from this folder, then run the command again.");
  }
  return std::unexpected(io_error("open", file, std::error_code(static_cast<int>(code), std::system_category())));
}

}  // namespace zcuda::platform

namespace zcuda::platform {

Result<FileIdentity> file_identity(const std::filesystem::path& file) {
  // FILE_READ_ATTRIBUTES with full sharing: works on files held open or running; backup
  // semantics lets it open folders too.
  HANDLE h = CreateFileW(file.c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    return std::unexpected(io_error("open", file, std::error_code(static_cast<int>(GetLastError()), std::system_category())));
  }
  BY_HANDLE_FILE_INFORMATION info{};
  const BOOL ok = GetFileInformationByHandle(h, &info);
  const DWORD code = GetLastError();
  CloseHandle(h);
  if (!ok) return std::unexpected(io_error("read the attributes of", file, std::error_code(static_cast<int>(code), std::system_category())));
  FileIdentity id;
  id.volume = info.dwVolumeSerialNumber;
  id.index = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  id.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  // FILETIME counts 100 ns ticks since 1601-01-01; 11644473600 s lie between 1601 and 1970.
  const std::uint64_t ticks = (static_cast<std::uint64_t>(info.ftLastWriteTime.dwHighDateTime) << 32) | info.ftLastWriteTime.dwLowDateTime;
  id.mtime_ns = (static_cast<std::int64_t>(ticks) - 116444736000000000LL) * 100;
  return id;
}

bool same_file(const FileIdentity& a, const FileIdentity& b) { return a.volume == b.volume && a.index == b.index; }

bool is_link(const fs::path& path) {
  const DWORD attributes = GetFileAttributesW(path.c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
}

}  // namespace zcuda::platform
