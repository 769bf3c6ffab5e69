#include "support/archive_builder.hpp"

#include <memory>
#include <stdexcept>

#include <archive.h>
#include <archive_entry.h>

namespace zcuda::test {

void write_archive(const std::filesystem::path& file, ArchiveType type, const std::vector<Spec>& entries) {
  std::unique_ptr<struct archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
  if (type == ArchiveType::zip) {
    archive_write_set_format_zip(a.get());
  } else {
    archive_write_set_format_pax_restricted(a.get());
    archive_write_add_filter_gzip(a.get());
  }
#ifdef _WIN32
  const int opened = archive_write_open_filename_w(a.get(), file.c_str());
#else
  const int opened = archive_write_open_filename(a.get(), file.c_str());
#endif
  if (opened != ARCHIVE_OK) throw std::runtime_error(archive_error_string(a.get()));
  for (const auto& spec : entries) {
    std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), archive_entry_free);
    archive_entry_copy_pathname(e.get(), spec.name.c_str());
    archive_entry_set_perm(e.get(), static_cast<decltype(archive_entry_perm(e.get()))>(spec.mode));
    archive_entry_set_mtime(e.get(), 1700000000, 0);
    switch (spec.type) {
      case Spec::Type::file:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_size(e.get(), static_cast<la_int64_t>(spec.content.size()));
        break;
      case Spec::Type::directory:
        archive_entry_set_filetype(e.get(), AE_IFDIR);
        break;
      case Spec::Type::symlink:
        archive_entry_set_filetype(e.get(), AE_IFLNK);
        archive_entry_copy_symlink(e.get(), spec.target.c_str());
        break;
      case Spec::Type::hardlink:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_copy_hardlink(e.get(), spec.target.c_str());
        archive_entry_set_size(e.get(), 0);
        break;
      case Spec::Type::char_device:
        archive_entry_set_filetype(e.get(), AE_IFCHR);
        archive_entry_set_rdev(e.get(), 0x0103);  // /dev/null's numbers
        break;
      case Spec::Type::fifo:
        archive_entry_set_filetype(e.get(), AE_IFIFO);
        break;
    }
    if (archive_write_header(a.get(), e.get()) < ARCHIVE_WARN) throw std::runtime_error(std::string("header: ") + archive_error_string(a.get()));
    if (spec.type == Spec::Type::file && !spec.content.empty()) {
      if (archive_write_data(a.get(), spec.content.data(), spec.content.size()) < 0) {
        throw std::runtime_error(std::string("data: ") + archive_error_string(a.get()));
      }
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) throw std::runtime_error(archive_error_string(a.get()));
}

std::map<std::string, std::string> read_zip(const std::filesystem::path& file) {
  std::unique_ptr<struct archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_format_zip(a.get());
#ifdef _WIN32
  const int opened = archive_read_open_filename_w(a.get(), file.c_str(), 1 << 16);
#else
  const int opened = archive_read_open_filename(a.get(), file.c_str(), 1 << 16);
#endif
  if (opened != ARCHIVE_OK) throw std::runtime_error(archive_error_string(a.get()));
  std::map<std::string, std::string> files;
  struct archive_entry* entry = nullptr;
  while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    std::string content;
    char buffer[65536];
    la_ssize_t n = 0;
    while ((n = archive_read_data(a.get(), buffer, sizeof buffer)) > 0) content.append(buffer, static_cast<std::size_t>(n));
    if (n < 0) throw std::runtime_error(archive_error_string(a.get()));
    files[archive_entry_pathname(entry)] = std::move(content);
  }
  return files;
}

}  // namespace zcuda::test
