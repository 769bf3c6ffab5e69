// A profile's ZLUDA family against the runtime a launch resolved: ComfyUI-Zluda and SD.Next
// launched with --runtime-dir pointing at upstream's v6 are refused, not started silently.
#include <gtest/gtest.h>

#include <zcuda/apps/runtime_match.hpp>

#include "unit/apps/embedded_profile.hpp"

namespace zcuda::apps {
namespace {

family::Identity runtime_of(family::Family family) {
  family::Identity identity;
  identity.family = family;
  identity.release = family == family::Family::upstream ? std::optional<std::string>("v6") : std::nullopt;
  identity.evidence = {"nvcuda.dll exports no zluda_get_nightly_flag"};
  return identity;
}

TEST(RuntimeMatch, TheLshqqytigerAppsRefuseUpstream) {
  for (const char* name : {"comfyui-zluda", "sdnext"}) {
    auto refused = check_runtime_family(embedded(name), runtime_of(family::Family::upstream));
    ASSERT_FALSE(refused) << name;
    EXPECT_EQ(refused.error().kind, ErrorKind::mixed_family);
    EXPECT_NE(refused.error().message.find("needs lshqqytiger ZLUDA"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("upstream"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().hint.find("--profile none"), std::string::npos);
    EXPECT_EQ(refused.error().notes, runtime_of(family::Family::upstream).evidence);
    EXPECT_TRUE(check_runtime_family(embedded(name), runtime_of(family::Family::lshqqytiger)));
  }
}

TEST(RuntimeMatch, UpstreamAppsRefuseLshqqytigerAndAnUnknownRuntimeIsNotJudged) {
  EXPECT_TRUE(family_mismatch(embedded("pytorch"), runtime_of(family::Family::lshqqytiger)));
  EXPECT_FALSE(family_mismatch(embedded("pytorch"), runtime_of(family::Family::upstream)));
  EXPECT_FALSE(family_mismatch(embedded("sdnext"), runtime_of(family::Family::unknown)));
}

}  // namespace
}  // namespace zcuda::apps
