#include <zcuda/platform/file_ops.hpp>

#include <windows.h>

#include <fmt/format.h>
#include <fmt/std.h>

#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

namespace fs = std::filesystem;

std::string_view to_string(PlaceMethod method) { return method == PlaceMethod::hard_link ? "hardlink" : "copy"; }

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
  HANDLE h = CreateFileW(file.c_str(), GENERIC_READ | GENERIC_WRITE | DELETE, 0, nullptr, OPEN_EXISTING,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
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
