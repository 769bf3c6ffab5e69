// The PhysX check's judgement of Windows' installed programs (the registry side is
// tests/unit/platform/windows_system_test.cpp): the System Software entry, its version against
// upstream's minimum, and what the user is told.
#include <gtest/gtest.h>

#include <zcuda/apps/physx_check.hpp>

namespace zcuda::apps {
namespace {

using platform::windows::InstalledProgram;

InstalledProgram physx(std::string version) { return {"NVIDIA PhysX System Software " + version, version, "NVIDIA Corporation", ""}; }

CheckRecord judged(const std::vector<InstalledProgram>& programs) {
  CheckRecord record;
  judge_physx(programs, record);
  return record;
}

TEST(PhysxCheck, VersionsCompareNumberByNumber) {
  EXPECT_EQ(version_at_least("9.19.0218", "9.19.0218"), true);
  EXPECT_EQ(version_at_least("9.23.1019", "9.19.0218"), true);
  EXPECT_EQ(version_at_least("9.9.814", "9.19.0218"), false);
  EXPECT_EQ(version_at_least("9.09.0814", "9.19.0218"), false);
  EXPECT_EQ(version_at_least("10.0", "9.19.0218"), true);
  EXPECT_EQ(version_at_least("9.19", "9.19.0218"), false);
  EXPECT_EQ(version_at_least("9.19.x", "9.19.0218"), std::nullopt);
  EXPECT_EQ(version_at_least("", "9.19.0218"), std::nullopt);
}

TEST(PhysxCheck, TheMinimumOrNewerPasses) {
  for (const char* version : {"9.19.0218", "9.23.1019"}) {
    const auto r = judged({{"Steam", "", "Valve", ""}, physx(version)});
    EXPECT_EQ(r.status, CheckStatus::pass) << version << ": " << r.reason;
    EXPECT_EQ(r.facts["version"], version);
    EXPECT_NE(r.reason.find(version), std::string::npos);
  }
}

TEST(PhysxCheck, AnOlderOneFailsAndSaysWhatToInstall) {
  const auto r = judged({physx("9.13.1220")});
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.reason.find("9.13.1220 is older than 9.19.0218"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("nvidia.com"), std::string::npos);
}

// Steam installs games' legacy runtimes beside the current one: the newest entry decides.
TEST(PhysxCheck, TheNewestOfSeveralEntriesDecides) {
  const auto r = judged({physx("9.12.1031"), physx("9.20.0221"), physx("9.14.0702")});
  EXPECT_EQ(r.status, CheckStatus::pass) << r.reason;
  EXPECT_EQ(r.facts["version"], "9.20.0221");
  EXPECT_EQ(r.facts["physx_system_software"].size(), 3u);
}

TEST(PhysxCheck, NoneInstalledFails) {
  const auto r = judged({{"NVIDIA PhysX Legacy", "", "NVIDIA Corporation", ""}});
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.reason.find("is not installed"), std::string::npos) << r.reason;
}

// The version is read from the name when DisplayVersion is missing, and an unreadable one is
// said as such, never taken for new enough.
TEST(PhysxCheck, TheVersionComesFromTheNameOrIsSaidUnreadable) {
  EXPECT_EQ(judged({{"NVIDIA PhysX System Software 9.21.0713", "", "NVIDIA Corporation", ""}}).status, CheckStatus::pass);
  const auto r = judged({{"NVIDIA PhysX System Software", "", "NVIDIA Corporation", ""}});
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.reason.find("cannot be read"), std::string::npos) << r.reason;
}

#ifndef _WIN32
TEST(PhysxCheck, OffWindowsItIsUnavailable) {
  CheckRecord record;
  run_physx_check(record);
  EXPECT_EQ(record.status, CheckStatus::unavailable);
  EXPECT_NE(record.reason.find("Windows only"), std::string::npos);
}
#endif

}  // namespace
}  // namespace zcuda::apps
