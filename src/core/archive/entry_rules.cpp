#include "entry_rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>

#include <fmt/format.h>
#include <zcuda/base/ascii.hpp>

namespace zcuda::archive::detail {

namespace {

std::vector<std::string> split(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string join(const std::vector<std::string>& parts, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

// Names Windows maps to devices whatever the extension ("NUL.txt" opens NUL).
bool is_windows_device_name(std::string_view component) {
  std::string stem = ascii_lower(component.substr(0, component.find('.')));
  static const std::array<std::string_view, 4> plain = {"con", "prn", "aux", "nul"};
  if (std::find(plain.begin(), plain.end(), stem) != plain.end()) return true;
  if (stem.size() == 4 && (stem.starts_with("com") || stem.starts_with("lpt")) && std::isdigit(static_cast<unsigned char>(stem[3])) && stem[3] != '0')
    return true;
  return false;
}

// Problems shared by names and link targets.
std::string text_problem(std::string_view text) {
  if (text.empty()) return "has an empty name";
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) return "contains a control character";
  }
  if (text.find('\\') != std::string_view::npos) return "contains a backslash (a path separator on Windows)";
  if (text.front() == '/') return "is an absolute path";
  if (text.size() >= 2 && std::isalpha(static_cast<unsigned char>(text[0])) && text[1] == ':') return "starts with a drive letter";
  if (text.find(':') != std::string_view::npos) return "contains ':' (a drive or an NTFS stream name on Windows)";
  return {};
}

}  // namespace

NameCheck check_name(std::string_view raw) {
  NameCheck result;
  result.problem = text_problem(raw);
  if (!result.problem.empty()) return result;
  std::vector<std::string> kept;
  for (const auto& part : split(raw)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      result.problem = "has a '..' component";
      return result;
    }
    if (part.back() == '.' || part.back() == ' ') {
      result.problem = fmt::format("has a component ending in '{}', which Windows silently drops", part.back());
      return result;
    }
    if (is_windows_device_name(part)) {
      result.problem = fmt::format("has the Windows device name \"{}\" as a component", part);
      return result;
    }
    kept.push_back(part);
  }
  result.normalized = join(kept, kept.size());
  return result;
}

std::string check_link_text(std::string_view target) { return text_problem(target); }

std::optional<std::string> relative_to_root(const std::string& path, const std::optional<std::string>& root) {
  if (!root) return path;
  if (path == *root) return std::string();
  if (path.size() > root->size() && path.starts_with(*root) && path[root->size()] == '/') return path.substr(root->size() + 1);
  return std::nullopt;
}

std::string EntrySet::add(Record record) {
  std::string key = ascii_lower(record.path);
  if (auto it = by_key_.find(key); it != by_key_.end()) {
    return fmt::format("repeats the name of entry \"{}\" (names must be unique, ignoring case as Windows does)", records_[it->second].raw);
  }
  by_key_.emplace(std::move(key), records_.size());
  records_.push_back(std::move(record));
  return {};
}

// Follows a symlink through the archive's own links (the destination starts empty, so the
// archive is all there is on disk) and reports how it escapes `boundary_depth` leading
// components of its own path, if it does. Lexical checks alone are not enough: "a -> b/../.."
// with "b -> ." escapes although each target looks harmless.
std::optional<std::string> EntrySet::resolve_escapes(const Record& link, std::size_t boundary_depth) const {
  auto position = split(link.path);
  position.pop_back();  // the folder holding the link
  std::deque<std::string> pending;
  for (auto& part : split(link.target)) pending.push_back(std::move(part));
  int expansions = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (position.size() <= boundary_depth) return fmt::format("is a link to \"{}\", which leads outside the folder being extracted", link.target);
      position.pop_back();
      continue;
    }
    position.push_back(part);
    auto it = by_key_.find(ascii_lower(join(position, position.size())));
    if (it == by_key_.end() || records_[it->second].kind != Kind::symlink) continue;
    if (++expansions > 40) return fmt::format("is a link to \"{}\" that loops through other links", link.target);
    // Continue from the folder holding that link with its target in front of what is left.
    position.pop_back();
    auto inner = split(records_[it->second].target);
    pending.insert(pending.begin(), inner.begin(), inner.end());
  }
  return std::nullopt;
}

std::optional<EntrySet::Refusal> EntrySet::finish(const std::optional<std::string>& root) const {
  const std::size_t root_depth = root ? split(*root).size() : 0;
  bool root_seen = !root.has_value();
  for (const auto& record : records_) {
    auto parts = split(record.path);
    // Writing "a/b" when "a" is a file fails; when "a" is a link it writes through the link.
    for (std::size_t n = 1; n < parts.size(); ++n) {
      auto it = by_key_.find(ascii_lower(join(parts, n)));
      if (it == by_key_.end()) continue;
      const Record& parent = records_[it->second];
      if (parent.kind == Kind::symlink)
        return Refusal{record.raw, fmt::format("lies below the link \"{}\" and would be written through it", parent.raw)};
      if (parent.kind != Kind::directory) return Refusal{record.raw, fmt::format("lies below \"{}\", which is a file", parent.raw)};
    }
    auto inside = relative_to_root(record.path, root);
    if (inside) root_seen = true;
    if (inside && inside->empty() && record.kind != Kind::directory) return Refusal{record.raw, "is the root to install but not a folder"};
    // A link inside root must stay inside root, since only root is installed; one elsewhere
    // must stay inside the archive.
    const std::size_t boundary = inside ? root_depth : 0;
    if (record.kind == Kind::symlink) {
      if (auto escape = resolve_escapes(record, boundary)) return Refusal{record.raw, *escape};
    } else if (record.kind == Kind::hardlink) {
      auto it = by_key_.find(ascii_lower(record.target));
      if (it == by_key_.end()) return Refusal{record.raw, fmt::format("is a hard link to \"{}\", which is not in the archive", record.target)};
      if (records_[it->second].kind != Kind::file)
        return Refusal{record.raw, fmt::format("is a hard link to \"{}\", which is not a regular file", record.target)};
      if (inside.has_value() != relative_to_root(record.target, root).has_value()) {
        return Refusal{record.raw, fmt::format("is a hard link to \"{}\", outside the folder being extracted", record.target)};
      }
    }
  }
  if (!root_seen) return Refusal{*root, "is not a folder in the archive", true};
  return std::nullopt;
}

}  // namespace zcuda::archive::detail
