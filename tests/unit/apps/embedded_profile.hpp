#pragma once
// One of the compiled-in profiles by name, for the tests that start from a real profile.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <zcuda/apps/profile.hpp>

namespace zcuda::apps {

inline const Profile& embedded(std::string_view name) {
  static const std::vector<Profile> profiles = [] {
    auto loaded = load(std::nullopt);
    EXPECT_TRUE(loaded) << loaded.error().message;
    return loaded ? *loaded : std::vector<Profile>{};
  }();
  const Profile* p = find(profiles, name);
  if (p == nullptr) throw std::runtime_error("no embedded profile " + std::string(name));
  return *p;
}

}  // namespace zcuda::apps
