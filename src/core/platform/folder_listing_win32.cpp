#include <zcuda/platform/folder_listing.hpp>

#include <system_error>

#include <zcuda/base/io_error.hpp>

#include "utf8_win32.hpp"

namespace zcuda::platform {

Result<std::vector<FolderEntry>> list_folder(const std::filesystem::path& folder) {
  const std::wstring pattern = (folder / L"*").wstring();
  WIN32_FIND_DATAW data;
  // Basic information (no 8.3 names) in large fetches: the cheapest way Windows lists a folder.
  HANDLE find = FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &data, FindExSearchNameMatch, nullptr, FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    if (code == ERROR_FILE_NOT_FOUND) return std::vector<FolderEntry>{};  // an empty volume root
    return std::unexpected(io_error("list", folder, std::error_code(static_cast<int>(code), std::system_category())));
  }
  std::vector<FolderEntry> entries;
  do {
    const std::wstring_view name(data.cFileName);
    if (name == L"." || name == L"..") continue;
    EntryKind kind = EntryKind::file;
    if ((data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
      kind = EntryKind::link;
    } else if ((data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
      kind = EntryKind::folder;
    }
    entries.push_back({win32::narrow(name), kind});
  } while (FindNextFileW(find, &data));
  const DWORD code = GetLastError();
  FindClose(find);
  if (code != ERROR_NO_MORE_FILES) return std::unexpected(io_error("list", folder, std::error_code(static_cast<int>(code), std::system_category())));
  return entries;
}

}  // namespace zcuda::platform
