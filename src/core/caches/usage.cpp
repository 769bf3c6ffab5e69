// How much a cache holds, and whether a folder may be cleared at all.
#include <cctype>
#include <chrono>

#include <fmt/format.h>

#include <zcuda/caches/caches.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::caches {

namespace fs = std::filesystem;

namespace {

std::int64_t seconds_since_epoch(fs::file_time_type t) {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(t).time_since_epoch()).count();
}

std::string folded(const fs::path& part) {
  std::string s = zcuda::path_to_utf8(part);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// `inner` is `outer` or lies inside it (both absolute and normalised). Letters compare without
// case, as Windows does: on Linux that refuses more, never less.
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || folded(*i) != folded(*o)) return false;
    ++i;
  }
  return true;
}

}  // namespace

namespace {

// Calls `visit` with each regular file under a real folder, links not followed, until it returns
// false. Unreadable parts are skipped. False when the folder is missing, a link or not a folder.
template <class Visit>
bool for_each_file(const fs::path& folder, bool& is_link, Visit visit) {
  std::error_code ec;
  const auto top = fs::symlink_status(folder, ec);
  if (ec || !fs::exists(top)) return false;
  if (fs::is_symlink(top) || platform::is_link(folder)) {
    is_link = true;
    return true;
  }
  if (!fs::is_directory(top)) return true;
  // The iterator does not descend into linked folders (follow_directory_symlink is not set), and
  // symlink_status keeps a linked file from being counted.
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    const auto status = it->symlink_status(entry_ec);
    if (!entry_ec && platform::is_link(it->path())) {
      it.disable_recursion_pending();  // a Windows junction is not reported as a link by status
      continue;
    }
    if (entry_ec || !fs::is_regular_file(status)) continue;
    if (!visit(*it)) break;
  }
  return true;
}

}  // namespace

Usage measure(const Folder& folder) {
  Usage usage;
  usage.folder = folder;
  usage.exists = for_each_file(folder.path, usage.is_link, [&](const fs::directory_entry& file) {
    std::error_code entry_ec;
    const auto size = file.file_size(entry_ec);
    if (entry_ec) return true;
    usage.bytes += size;
    ++usage.files;
    const auto written = file.last_write_time(entry_ec);
    if (entry_ec) return true;
    const auto when = seconds_since_epoch(written);
    if (!usage.newest || when > *usage.newest) usage.newest = when;
    if (!usage.oldest || when < *usage.oldest) usage.oldest = when;
    return true;
  });
  return usage;
}

Written written_since(const Folder& folder, std::optional<std::int64_t> since) {
  Written out;
  bool is_link = false;
  for_each_file(folder.path, is_link, [&](const fs::directory_entry& file) {
    out.any = true;
    std::error_code entry_ec;
    const auto written = file.last_write_time(entry_ec);
    out.since = !since || (!entry_ec && seconds_since_epoch(written) >= *since);
    return !out.since;
  });
  return out;
}

nlohmann::json to_json(const Usage& usage) {
  auto time = [](const std::optional<std::int64_t>& t) { return t ? nlohmann::json(*t) : nlohmann::json(nullptr); };
  return {{"name", usage.folder.name},     {"path", zcuda::path_to_utf8(usage.folder.path)},
          {"origin", usage.folder.origin}, {"exists", usage.exists},
          {"is_link", usage.is_link},      {"bytes", usage.bytes},
          {"files", usage.files},          {"newest", time(usage.newest)},
          {"oldest", time(usage.oldest)}};
}

std::optional<std::string> refuse_reason(const Usage& usage, const platform::CacheRoots& roots) {
  const fs::path& path = usage.folder.path;
  if (usage.is_link) return fmt::format("{} is a symbolic link; zcuda does not follow it", path);
  if (!path.is_absolute()) return fmt::format("{} is not an absolute path", path);
  if (path == path.root_path() || !path.has_relative_path()) return fmt::format("{} is the root of a drive", path);
  for (const auto& guarded : {roots.profile, roots.user_cache, std::optional<fs::path>(roots.temp)}) {
    if (!guarded || guarded->empty()) continue;
    if (within(guarded->lexically_normal(), path.lexically_normal())) {
      return fmt::format("{} holds {}, which is not a cache", path, *guarded);
    }
  }
  return std::nullopt;
}

}  // namespace zcuda::caches
