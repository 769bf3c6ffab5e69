#pragma once
// Shared by the detect suites: run detection with options, find a finding by its code.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>

namespace zcuda::detect::testing {

inline Profile detect_with(const Options& options) {
  auto profile = detect_machine(options);
  EXPECT_TRUE(profile) << (profile ? "" : profile.error().message);
  return profile ? *profile : Profile{};
}

inline const Finding* finding(const Profile& p, const std::string& code) {
  auto it = std::find_if(p.findings.begin(), p.findings.end(), [&](const Finding& f) { return f.code == code; });
  return it == p.findings.end() ? nullptr : &*it;
}

}  // namespace zcuda::detect::testing
