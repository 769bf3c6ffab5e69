// Clearing caches: only the folders locate() names, only real folders (never through a link),
// and links inside are removed as links.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/caches/caches.hpp>
#include <zcuda/core/path_format.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::caches {

namespace fs = std::filesystem;

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
    // std::filesystem::remove_all removes a link it meets, not what the link points to.
    std::error_code ec;
    fs::remove_all(removal.usage.folder.path, ec);
    if (ec) return std::unexpected(platform::io_error("remove", removal.usage.folder.path, ec));
    removal.removed = true;
  }
  return out;
}

}  // namespace zcuda::caches
