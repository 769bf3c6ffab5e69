#pragma once
// The rules an archive must pass before anything is extracted. Pure functions over entry names
// and link targets, so they are easy to test and the same on every platform.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zcuda::archive::detail {

enum class Kind { file, directory, symlink, hardlink };

// A checked entry name: `normalized` has '/' separators, no "." or empty components and no
// trailing '/'. `problem` says why the name is refused; empty when it is fine.
struct NameCheck {
  std::string normalized;
  std::string problem;
};
NameCheck check_name(std::string_view raw);

// Whether a symlink's target text is acceptable before resolution: relative, no backslash, no
// drive or stream prefix. Returns the problem, empty when fine.
std::string check_link_text(std::string_view target);

// The path relative to `root`: "" for root itself, nullopt when outside it.
std::optional<std::string> relative_to_root(const std::string& path, const std::optional<std::string>& root);

struct Record {
  std::string raw;   // as written in the archive, for messages
  std::string path;  // normalized
  Kind kind = Kind::file;
  std::string target;  // symlink: raw target; hardlink: normalized target path
};

// Every entry of an archive, checked as a set once all are known.
class EntrySet {
 public:
  // Returns the problem (duplicate name), empty when accepted.
  std::string add(Record record);
  // Checks what needs the whole set: a path below a file or link, links that lead outside their
  // extraction root, hardlinks to missing entries, and that `root` exists. Returns the offending
  // entry's raw name and the problem, or nullopt when all is well.
  struct Refusal {
    std::string entry;
    std::string problem;
    bool root_missing = false;
  };
  std::optional<Refusal> finish(const std::optional<std::string>& root) const;

 private:
  std::optional<std::string> resolve_escapes(const Record& link, std::size_t boundary_depth) const;
  std::vector<Record> records_;
  std::map<std::string, std::size_t> by_key_;  // lowercase path -> index into records_
};

}  // namespace zcuda::archive::detail
