#include <zcuda/verify/verify.hpp>

#include <algorithm>

namespace zcuda::verify {

std::vector<Unit> schedule(const std::vector<const CheckSpec*>& selected) {
  std::vector<Unit> exclusive, shared;
  std::vector<std::string> keys;  // the group of each shared unit; ungrouped checks get a key of their own
  for (const auto* spec : selected) {
    if (spec->exclusive) {
      exclusive.push_back(Unit{{spec}, true});
      continue;
    }
    const std::string key = spec->group.empty() ? "\n" + spec->name : spec->group;
    const auto known = std::find(keys.begin(), keys.end(), key);
    if (known == keys.end()) {
      keys.push_back(key);
      shared.push_back(Unit{{spec}, false});
    } else {
      shared[static_cast<std::size_t>(known - keys.begin())].checks.push_back(spec);
    }
  }
  // The longest units start first, so the short ones fill the gaps at the end.
  std::stable_sort(shared.begin(), shared.end(), [](const Unit& a, const Unit& b) { return a.checks.size() > b.checks.size(); });
  exclusive.insert(exclusive.end(), shared.begin(), shared.end());
  return exclusive;
}

}  // namespace zcuda::verify
