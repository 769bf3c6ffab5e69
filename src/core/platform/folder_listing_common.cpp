#include <algorithm>

#include <zcuda/platform/folder_listing.hpp>

namespace zcuda::platform {

std::vector<std::string> sorted_names(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  if (auto entries = list_folder(folder)) {
    names.reserve(entries->size());
    for (auto& entry : *entries) names.push_back(std::move(entry.name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace zcuda::platform
