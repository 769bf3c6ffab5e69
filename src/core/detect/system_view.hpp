#pragma once
// Read-only access to the files probes look at, either on the live machine or under a captured
// tree (--root). Every path is given as on the live machine ("/sys/class/kfd/...").
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/file_ops.hpp>

namespace zcuda::detect {

class SystemView {
 public:
  explicit SystemView(std::optional<std::filesystem::path> root) : root_(std::move(root)) {}

  bool rooted() const { return root_.has_value(); }
  std::filesystem::path host_path(const std::filesystem::path& path) const;

  // The file's text; ErrorKind::not_found when absent, ErrorKind::io when unreadable (EPERM
  // from a device cgroup, EACCES), ErrorKind::invalid_input when larger than max_bytes.
  Result<std::string> read(const std::filesystem::path& path, std::size_t max_bytes = 1u << 20) const;
  // The first line of a small file with surrounding blanks removed, or nothing.
  std::optional<std::string> read_line(const std::filesystem::path& path) const;
  bool exists(const std::filesystem::path& path) const;
  bool is_directory(const std::filesystem::path& path) const;
  // Names of the entries of a folder, sorted; empty when it does not exist. Read once per view and
  // kept (the reference stays valid while the view lives).
  const std::vector<std::string>& list(const std::filesystem::path& path) const;
  // The same names in the order the folder gives them: for a question about a few names in a big
  // folder (/usr/lib/x86_64-linux-gnu), where sorting every name would cost more than the question.
  const std::vector<std::string>& names(const std::filesystem::path& path) const;
  // The first name, in sorted order, that `wanted` accepts; what a walk over list() would find.
  template <class Predicate>
  std::optional<std::string> first_name(const std::filesystem::path& path, Predicate wanted) const {
    const std::string* best = nullptr;
    for (const auto& name : names(path)) {
      if ((best == nullptr || name < *best) && wanted(name)) best = &name;
    }
    return best != nullptr ? std::optional(*best) : std::nullopt;
  }
  // The target of a symbolic link as written in it ("../../../0000:03:00.0"); nothing for a path
  // that is not a link (a copied tree, Windows).
  std::optional<std::filesystem::path> link_target(const std::filesystem::path& path) const;
  // Where a symbolic link points, resolved within the view (used for /opt/rocm -> rocm-6.4.0).
  std::filesystem::path canonical(const std::filesystem::path& path) const;
  // Which folder or file a path names (volume and file number), links and junctions followed:
  // two paths to one install compare equal even where links cannot be read (Windows).
  std::optional<platform::FileIdentity> identity(const std::filesystem::path& path) const;

 private:
  std::optional<std::filesystem::path> root_;
  // Listings already read: the HIP probe asks for the same library folders once per library
  // (/usr/lib/x86_64-linux-gnu holds thousands of names). A view lives for one detection.
  mutable std::map<std::filesystem::path, std::vector<std::string>> listings_, sorted_listings_;
};

std::string trim(std::string_view text);

}  // namespace zcuda::detect
