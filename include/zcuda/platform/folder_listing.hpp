#pragma once
// The names in one folder, read in a single pass: no path object built per entry and no entry's
// type asked for separately. A launch lists folders such as /usr/bin or a HIP SDK's library folder,
// with thousands of names, several times (issue 38: a launch costs at most 5 ms).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::platform {

// What the folder listing itself says an entry is; `unknown` where the file system does not say
// (some POSIX file systems): ask std::filesystem then, for the entries that matter.
enum class EntryKind { file, folder, link, other, unknown };

struct FolderEntry {
  std::string name;  // UTF-8
  EntryKind kind = EntryKind::unknown;
};

// The folder's entries in the order the file system gives them, "." and ".." left out. A link
// (a symbolic link; on Windows any reparse point, junctions too) is `link`, not followed.
Result<std::vector<FolderEntry>> list_folder(const std::filesystem::path& folder);

// Listings read once and kept, for one launch that asks several questions of one folder (the
// mixed-family check, whether to stage, the first-run scan): in /usr/bin each listing costs about
// a millisecond of the kernel's time on ext4. Whoever changes a folder forgets its listing.
class FolderListings {
 public:
  const Result<std::vector<FolderEntry>>& list(const std::filesystem::path& folder);
  void forget(const std::filesystem::path& folder) { known_.erase(folder); }

 private:
  std::map<std::filesystem::path, Result<std::vector<FolderEntry>>> known_;
};

// The entries' names in the folder's order; empty when the folder cannot be listed.
std::vector<std::string> folder_names(const std::filesystem::path& folder);

// The entries' names, sorted; empty when the folder cannot be listed.
std::vector<std::string> sorted_names(const std::filesystem::path& folder);

}  // namespace zcuda::platform
