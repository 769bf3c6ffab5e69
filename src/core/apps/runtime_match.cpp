// A profile's ZLUDA family against the runtime a launch resolved (docs/apps.md, "The profiles").
#include <zcuda/apps/runtime_match.hpp>

#include <fmt/format.h>

namespace zcuda::apps {

std::optional<std::string> family_mismatch(const Profile& profile, const family::Identity& runtime) {
  if (runtime.family == family::Family::unknown || runtime.family == profile.family) return std::nullopt;
  return fmt::format("profile {} needs {} ZLUDA, and the runtime is {}", profile.name, family::to_string(profile.family), family::summary(runtime));
}

Status check_runtime_family(const Profile& profile, const family::Identity& runtime) {
  auto mismatch = family_mismatch(profile, runtime);
  if (!mismatch) return {};
  Error error{ErrorKind::mixed_family, *mismatch + ": the program was not started", {}, {}};
  error.hint = profile.runtime ? fmt::format(
                                     "Leave out --runtime-dir/--runtime so the application's own ZLUDA ({}) is used, or name a {} runtime; "
                                     "--profile none launches without the profile.",
                                     *profile.runtime, family::to_string(profile.family))
                               : fmt::format("Name a {} runtime with --runtime-dir or --runtime; --profile none launches without the profile.",
                                             family::to_string(profile.family));
  for (const auto& line : runtime.evidence) error.with_note(line);
  return std::unexpected(std::move(error));
}

}  // namespace zcuda::apps
