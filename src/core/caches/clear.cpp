// Clearing caches: only the folders locate() names, only real folders (never through a link),
// and links inside are removed as links.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/caches/caches.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::caches {

namespace fs = std::filesystem;

namespace {

// Removes a folder's contents and then the folder. A link (a Windows junction included) is
// removed as a link: its target is never entered.
Status remove_tree(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  if (ec) return std::unexpected(io_error("list", dir, ec));
  for (const auto& entry : entries) {
    const auto status = fs::symlink_status(entry, ec);
    if (!platform::is_link(entry) && fs::is_directory(status)) {
      if (auto removed = remove_tree(entry); !removed) return removed;
      continue;
    }
    fs::remove(entry, ec);
    if (ec) return std::unexpected(io_error("remove", entry, ec));
  }
  fs::remove(dir, ec);
  if (ec) return std::unexpected(io_error("remove", dir, ec));
  return {};
}

}  // namespace

Result<std::vector<Removal>> clear(const std::vector<std::string>& names, const Inputs& inputs, bool apply) {
  for (const auto& name : names) {
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end()) {
      return fail(ErrorKind::usage, fmt::format("'{}' is not a cache zcuda knows", name),
                  fmt::format("Name one or more of: {}.", fmt::join(kNames, ", ")));
    }
  }
  std::vector<Removal> out;
  for (const auto& folder : locate(inputs)) {
    if (std::find(names.begin(), names.end(), folder.name) == names.end()) continue;
    Removal removal;
    removal.usage = measure(folder);
    if (!removal.usage.exists) continue;
    removal.refused = refuse_reason(removal.usage, inputs.roots);
    out.push_back(std::move(removal));
  }
  if (!apply) return out;
  for (auto& removal : out) {
    if (removal.refused) continue;
    if (auto removed = remove_tree(removal.usage.folder.path); !removed) return std::unexpected(removed.error());
    removal.removed = true;
  }
  return out;
}

}  // namespace zcuda::caches
