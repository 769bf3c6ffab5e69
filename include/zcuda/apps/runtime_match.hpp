#pragma once
// Whether the runtime a launch resolved is the ZLUDA family the application's profile needs:
// ComfyUI-Zluda and SD.Next load lshqqytiger's CUDA 11 names and its zluda_* exports, which
// upstream's files do not have (patientx/ComfyUI-Zluda#470).
#include <optional>
#include <string>

#include <zcuda/apps/profile.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>

namespace zcuda::apps {

// Why the runtime's family is not the profile's; nullopt when they agree or the runtime's family
// is unknown (nothing to compare).
std::optional<std::string> family_mismatch(const Profile& profile, const family::Identity& runtime);

// The same as a refusal (mixed_family, exit 14) with what to do.
Status check_runtime_family(const Profile& profile, const family::Identity& runtime);

}  // namespace zcuda::apps
