#include <algorithm>

#include <zcuda/platform/folder_listing.hpp>

namespace zcuda::platform {

const Result<std::vector<FolderEntry>>& FolderListings::list(const std::filesystem::path& folder) {
  if (auto known = known_.find(folder); known != known_.end()) return known->second;
  return known_.emplace(folder, list_folder(folder)).first->second;
}

std::vector<std::string> folder_names(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  if (auto entries = list_folder(folder)) {
    names.reserve(entries->size());
    for (auto& entry : *entries) names.push_back(std::move(entry.name));
  }
  return names;
}

std::vector<std::string> sorted_names(const std::filesystem::path& folder) {
  std::vector<std::string> names = folder_names(folder);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace zcuda::platform
