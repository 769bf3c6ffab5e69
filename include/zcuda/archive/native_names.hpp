#pragma once
// libarchive calls that take a file name, in the file system's own characters: UTF-16 on
// Windows (the wide entry points), bytes elsewhere. libarchive's narrow names go through the C
// locale or the ANSI code page, which cannot hold every name (a home folder like /home/josé or
// C:\Users\José). Overloads on std::filesystem::path's character type choose the entry point, so
// no module outside platform needs #if _WIN32. For zcuda_core's sources, which link libarchive.
#include <cstddef>
#include <filesystem>

#include <archive.h>
#include <archive_entry.h>

namespace zcuda::libarchive_names {

inline int open_read(struct archive* a, const char* name, std::size_t block) { return archive_read_open_filename(a, name, block); }
inline int open_read(struct archive* a, const wchar_t* name, std::size_t block) { return archive_read_open_filename_w(a, name, block); }

inline int open_write(struct archive* a, const char* name) { return archive_write_open_filename(a, name); }
inline int open_write(struct archive* a, const wchar_t* name) { return archive_write_open_filename_w(a, name); }

inline void set_pathname(struct archive_entry* e, const char* name) { archive_entry_copy_pathname(e, name); }
inline void set_pathname(struct archive_entry* e, const wchar_t* name) { archive_entry_copy_pathname_w(e, name); }

inline void set_hardlink(struct archive_entry* e, const char* name) { archive_entry_copy_hardlink(e, name); }
inline void set_hardlink(struct archive_entry* e, const wchar_t* name) { archive_entry_copy_hardlink_w(e, name); }

}  // namespace zcuda::libarchive_names
