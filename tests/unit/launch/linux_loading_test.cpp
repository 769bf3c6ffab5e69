// How a Linux program finds ZLUDA and ROCm: LD_LIBRARY_PATH by default (ZLUDA's recommended
// method), LD_AUDIT with zluda_ld on --ld-audit (its alternative; docs/src/quick_start.md), ROCm's
// lib folder on the library path either way (ZLUDA links ROCm's unversioned names), and no
// HIP_PATH (only ZLUDA's Windows build reads it).
#include <gtest/gtest.h>

#include <zcuda/base/error.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/launch/launch.hpp>

#include "plan_fixture.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using platform::Os;

class LinuxLoading : public test_support::PlanFixture {
 protected:
  void SetUp() override {
    PlanFixture::SetUp();
    rocm = tmp / "rocm";
    fs::create_directories(rocm / "lib");
    test::write_file(rocm / "lib" / "libamdhip64.so", "hip");
    options.hip_path = rocm;
    test::write_file(runtime / "zluda_ld", "audit");
  }
  fs::path rocm;
};

TEST_F(LinuxLoading, ByDefaultTheLibraryPathCarriesZludaThenRocmAndLdAuditStaysAsItWas) {
  auto plan = prepare_launch(options, {{"LD_LIBRARY_PATH", "/usr/lib/x"}, {"LD_AUDIT", "/other/audit.so"}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("LD_LIBRARY_PATH"), path_to_utf8(runtime) + ":" + path_to_utf8(rocm / "lib") + ":/usr/lib/x");
  EXPECT_EQ(plan->environment.at("LD_AUDIT"), "/other/audit.so");
  EXPECT_FALSE(change(*plan, "LD_AUDIT"));
  const auto why = change(*plan, "LD_LIBRARY_PATH")->why;
  EXPECT_NE(why.find("recommended"), std::string::npos) << why;
  EXPECT_NE(why.find("--ld-audit"), std::string::npos) << why;
  EXPECT_NE(why.find("libamdhip64.so"), std::string::npos) << why;
}

TEST_F(LinuxLoading, LdAuditUsesZludaLdAndKeepsOnlyRocmOnTheLibraryPath) {
  options.ld_audit = true;
  auto plan = prepare_launch(options, {{"LD_AUDIT", "/other/audit.so"}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("LD_AUDIT"), path_to_utf8(runtime / "zluda_ld") + ":/other/audit.so");
  EXPECT_NE(change(*plan, "LD_AUDIT")->why.find("alternative"), std::string::npos);
  EXPECT_EQ(plan->environment.at("LD_LIBRARY_PATH"), path_to_utf8(rocm / "lib"));

  fs::remove(runtime / "zluda_ld");
  auto refused = prepare_launch(options, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::not_found);
  EXPECT_NE(refused.error().message.find("zluda_ld"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().hint.find("--ld-audit"), std::string::npos) << refused.error().hint;
}

TEST_F(LinuxLoading, TraceWithLdAuditUsesTheTraceFoldersZludaLd) {
  fs::create_directories(runtime / "trace");
  test::write_file(runtime / "trace" / "zluda_ld", "trace audit");
  options.ld_audit = true;
  options.trace = true;
  options.trace_log_dir = tmp / "traces";
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("LD_AUDIT"), path_to_utf8(runtime / "trace" / "zluda_ld"));
}

TEST_F(LinuxLoading, NoHipPathOnLinuxButWindowsStillGetsIt) {
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_FALSE(plan->environment.contains("HIP_PATH"));
  EXPECT_FALSE(change(*plan, "HIP_PATH"));
  // A user's own HIP_PATH is left as it is (ZLUDA on Linux ignores it).
  auto kept = prepare_launch(options, {{"HIP_PATH", "/somewhere"}});
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->environment.at("HIP_PATH"), "/somewhere");

  options.os = Os::windows;
  auto windows = prepare_launch(options, {});
  ASSERT_TRUE(windows) << windows.error().message;
  EXPECT_EQ(path_from_utf8(windows->environment.at("HIP_PATH")), rocm);
}

}  // namespace
}  // namespace zcuda::launch
