// The app folder's lock and the checks that zcuda's stage area is made of real objects.
#include <zcuda/stage/folder_lock.hpp>

#include <fmt/format.h>

#include <zcuda/base/io_error.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/stage/plan.hpp>
#include <zcuda/ui/notice.hpp>

namespace zcuda::stage {

namespace fs = std::filesystem;

Result<platform::FileLock> lock_app_folder(const fs::path& root, platform::LockMode mode) {
  platform::LockWait how;
  how.on_wait = [&](std::optional<long>) {
    const char* what = mode == platform::LockMode::exclusive ? "is staging, unstaging or running a program from" : "is changing";
    ui::Notices().print(ui::NoticeKind::notice, fmt::format("waiting: another zcuda process {} {}", what, root));
  };
  return platform::lock_folder(root, mode, how);
}

namespace {
Error planted_link(const fs::path& link, const fs::path& root) {
  return Error{ErrorKind::invalid_input,
               fmt::format("{} is a link (or junction), inside the folder zcuda keeps its stage state or places files in", link),
               fmt::format("zcuda never moves or deletes files through a link: it could reach outside {}. Someone (a downloaded "
                           "archive, a script) put the link there; remove it and check the folder it points to.",
                           root),
               {}};
}
}  // namespace

Status check_stage_area(const fs::path& root) {
  const fs::path dir = stage_dir(root);
  std::error_code ec;
  if (platform::is_link(dir)) return std::unexpected(planted_link(dir, root));
  if (!fs::exists(fs::symlink_status(dir, ec))) return {};
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    return fail(ErrorKind::invalid_input, fmt::format("{} is not a folder", dir), "zcuda keeps its stage state there; move the file away.");
  }
  // The stage area is small (a journal, the backups of a few libraries): every entry is checked.
  // A link to a folder (or a junction) would make renames and clean-ups reach outside; the journal
  // as a link would be read from elsewhere. A link to a file is harmless to move (the rename moves
  // the link itself), and is how an original that was a link is backed up.
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!platform::is_link(it->path())) continue;
    std::error_code target_ec;
    const bool to_folder = fs::is_directory(fs::status(it->path(), target_ec));
    if (to_folder || it->path() == journal_path(root) || it->path().parent_path() == dir) {
      return std::unexpected(planted_link(it->path(), root));
    }
  }
  if (ec) return std::unexpected(io_error("list", dir, ec));
  return {};
}

Status check_real_path(const fs::path& root, const fs::path& relative) {
  fs::path at = root;
  for (auto part = relative.begin(); part != relative.end(); ++part) {
    at /= *part;
    // The last part may be missing or a file of the user's; folders on the way must be real.
    if (std::next(part) == relative.end()) break;
    if (platform::is_link(at)) return std::unexpected(planted_link(at, root));
  }
  return {};
}

}  // namespace zcuda::stage
