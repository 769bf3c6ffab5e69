#pragma once
// File placement for `zcuda stage`: hard links where the volume allows them, copies otherwise,
// and (on Windows) a check that a file is not held by a running program before replacing it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include <zcuda/base/error.hpp>

namespace zcuda::platform {

enum class PlaceMethod { hard_link, copy };
std::string_view to_string(PlaceMethod method);  // "hardlink" | "copy", as the stage journal stores it
std::optional<PlaceMethod> place_method_from(std::string_view word);

// Makes `target` (which must not exist) hold the content of `source`: a hard link when both lie
// on one volume and the file system supports it, a copy otherwise.
Result<PlaceMethod> link_or_copy(const std::filesystem::path& source, const std::filesystem::path& target);

// Fails with ErrorKind::locked when another process holds `file` open so that it cannot be
// replaced (Windows: a running program or a DLL it loaded). On POSIX a file in use can be
// replaced safely (the running process keeps the old inode), so this always succeeds there.
Status check_replaceable(const std::filesystem::path& file);

// Which file a path names (volume and file number: equal for hard links of one file), with its
// size and last-write time. POSIX: stat's st_dev/st_ino/st_size/st_mtim; Windows:
// GetFileInformationByHandle's volume serial, file index, size and last-write time. A final
// symlink is followed.
struct FileIdentity {
  std::uint64_t volume = 0;
  std::uint64_t index = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;  // nanoseconds since 1970-01-01 UTC
};
Result<FileIdentity> file_identity(const std::filesystem::path& file);

// The two identities are of one file (hard links of it, or one path twice).
bool same_file(const FileIdentity& a, const FileIdentity& b);

// The path itself is a link of any kind: a symbolic link, or on Windows any reparse point
// (junctions too, which std::filesystem's status does not report as links). Not followed.
bool is_link(const std::filesystem::path& path);

}  // namespace zcuda::platform
