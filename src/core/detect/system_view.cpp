#include "system_view.hpp"

#include <zcuda/platform/folder_listing.hpp>

#include <algorithm>

#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::detect {

namespace fs = std::filesystem;

std::string trim(std::string_view text) {
  const auto* ws = " \t\r\n";
  auto begin = text.find_first_not_of(ws);
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(ws);
  return std::string(text.substr(begin, end - begin + 1));
}

fs::path SystemView::host_path(const fs::path& path) const {
  if (!root_) return path;
  return *root_ / path.relative_path();
}

Result<std::string> SystemView::read(const fs::path& path, std::size_t max_bytes) const { return platform::read_file(host_path(path), max_bytes); }

std::optional<std::string> SystemView::read_line(const fs::path& path) const {
  auto text = read(path, 64u << 10);
  if (!text) return std::nullopt;
  std::string_view view(*text);
  return trim(view.substr(0, view.find('\n')));
}

bool SystemView::exists(const fs::path& path) const {
  std::error_code ec;
  return fs::exists(host_path(path), ec);
}

bool SystemView::is_directory(const fs::path& path) const {
  std::error_code ec;
  return fs::is_directory(host_path(path), ec);
}

const std::vector<std::string>& SystemView::names(const fs::path& path) const {
  if (auto known = listings_.find(path); known != listings_.end()) return known->second;
  return listings_.emplace(path, platform::folder_names(host_path(path))).first->second;
}

const std::vector<std::string>& SystemView::list(const fs::path& path) const {
  if (auto known = sorted_listings_.find(path); known != sorted_listings_.end()) return known->second;
  std::vector<std::string> sorted = names(path);
  std::sort(sorted.begin(), sorted.end());
  return sorted_listings_.emplace(path, std::move(sorted)).first->second;
}

std::optional<fs::path> SystemView::link_target(const fs::path& path) const {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(host_path(path), ec))) return std::nullopt;
  fs::path target = fs::read_symlink(host_path(path), ec);
  if (ec) return std::nullopt;
  return target;
}

fs::path SystemView::canonical(const fs::path& path) const {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(host_path(path), ec);
  if (ec) return path;
  if (!root_) return resolved;
  // Map back to a live-machine path; a link leading out of the captured tree stays as given.
  fs::path root = fs::weakly_canonical(*root_, ec);
  auto rel = resolved.lexically_relative(root);
  if (ec || rel.empty() || *rel.begin() == "..") return path;
  return fs::path("/") / rel;
}

std::optional<platform::FileIdentity> SystemView::identity(const fs::path& path) const {
  auto id = platform::file_identity(host_path(path));
  if (!id) return std::nullopt;
  return *id;
}

}  // namespace zcuda::detect
