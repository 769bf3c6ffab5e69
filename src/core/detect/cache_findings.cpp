// large-cache: kernel caches that only grow. ZLUDA keys its cache by its own build, so every
// ZLUDA update starts a new cache beside the old entries, and nothing ever cleans them.
#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/base/units.hpp>

namespace zcuda::detect {

void add_cache_findings(Profile& profile, const std::vector<caches::Usage>& usages, std::uint64_t threshold) {
  for (const auto& u : usages) {
    if (u.bytes <= threshold) continue;
    std::string why = u.folder.name == "zluda" ? " Each ZLUDA update starts a new cache, and the old entries stay." : "";
    profile.findings.push_back(
        {Severity::info, "large-cache",
         fmt::format("The {} cache {} holds {} in {} files", u.folder.name, u.folder.path, zcuda::format_bytes(u.bytes), u.files),
         fmt::format("Free the space with 'zcuda cache clear {} --yes'; the next run compiles its kernels again.{}", u.folder.name, why)});
  }
}

}  // namespace zcuda::detect
