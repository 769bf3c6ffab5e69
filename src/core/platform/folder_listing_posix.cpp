#include <zcuda/platform/folder_listing.hpp>

#include <dirent.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <zcuda/base/io_error.hpp>

namespace zcuda::platform {

namespace {

EntryKind kind_of(unsigned char type) {
  switch (type) {
    case DT_REG:
      return EntryKind::file;
    case DT_DIR:
      return EntryKind::folder;
    case DT_LNK:
      return EntryKind::link;
    case DT_UNKNOWN:
      return EntryKind::unknown;
    default:
      return EntryKind::other;
  }
}

}  // namespace

Result<std::vector<FolderEntry>> list_folder(const std::filesystem::path& folder) {
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return std::unexpected(io_error("list", folder, std::error_code(errno, std::generic_category())));
  std::vector<FolderEntry> entries;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
    entries.push_back({entry->d_name, kind_of(entry->d_type)});
  }
  const int read_error = errno;
  ::closedir(dir);
  if (read_error != 0) return std::unexpected(io_error("list", folder, std::error_code(read_error, std::generic_category())));
  return entries;
}

}  // namespace zcuda::platform
