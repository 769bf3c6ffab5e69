// The environment `zcuda run` sets beyond the libraries' paths (environment parity with the
// community wrapper), and how a launch through zluda.exe is encoded in the plan.
#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include <zcuda/base/error.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/base/path_text.hpp>

#include "plan_fixture.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using platform::Os;

using test_support::PlanFixture;

TEST_F(PlanFixture, Tf32OverrideIsSetByDefaultAndSaysWhy) {
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"), "1");
  ASSERT_TRUE(change(*plan, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"));
  EXPECT_NE(change(*plan, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE")->why.find("--no-tf32-override"), std::string::npos);
}

TEST_F(PlanFixture, NoTf32OverrideLeavesItAndAUsersValueIsKept) {
  options.tf32_override = false;
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->environment.contains("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"));
  options.tf32_override = true;
  auto kept = prepare_launch(options, {{"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "0"}});
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->environment.at("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"), "0");
  EXPECT_FALSE(change(*kept, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"));
}

TEST_F(PlanFixture, ADeviceChoiceTakesRocrVisibleDevicesAway) {
  options.device = "1";
  auto plan = prepare_launch(options, {{"ROCR_VISIBLE_DEVICES", "0"}});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->environment.at("HIP_VISIBLE_DEVICES"), "1");
  EXPECT_FALSE(plan->environment.contains("ROCR_VISIBLE_DEVICES"));
  const auto removed = change(*plan, "ROCR_VISIBLE_DEVICES");
  ASSERT_TRUE(removed);
  EXPECT_TRUE(removed->removed);
  EXPECT_EQ(removed->before, "0");
  EXPECT_NE(removed->why.find("HIP_VISIBLE_DEVICES"), std::string::npos);
  const auto plan_json = to_json(*plan);  // the loop below must not outlive it
  for (const auto& c : plan_json.at("environment")) {
    if (c.at("name") == "ROCR_VISIBLE_DEVICES") {
      EXPECT_TRUE(c.at("value").is_null() && c.at("removed").get<bool>());
    }
  }
  // Without a device choice it is the user's to keep; --env still wins.
  options.device.reset();
  auto untouched = prepare_launch(options, {{"ROCR_VISIBLE_DEVICES", "0"}});
  ASSERT_TRUE(untouched);
  EXPECT_EQ(untouched->environment.at("ROCR_VISIBLE_DEVICES"), "0");
  options.device = "1";
  options.overrides = {{"ROCR_VISIBLE_DEVICES", "1"}};
  auto overridden = prepare_launch(options, {{"ROCR_VISIBLE_DEVICES", "0"}});
  ASSERT_TRUE(overridden);
  EXPECT_EQ(overridden->environment.at("ROCR_VISIBLE_DEVICES"), "1");
}

TEST_F(PlanFixture, HipblasltUsesTheGpusOwnKernelFolder) {
  const fs::path hip = tmp / "rocm";
  fs::create_directories(hip / "lib" / "hipblaslt" / "library" / "gfx1100");
  options.hip_path = hip;
  options.gfx = "gfx1100";
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(zcuda::path_from_utf8(plan->environment.at("HIPBLASLT_TENSILE_LIBPATH")), hip / "lib" / "hipblaslt" / "library" / "gfx1100");
  options.gfx = "gfx1201";  // no folder of its own: the whole library
  auto other = prepare_launch(options, {});
  ASSERT_TRUE(other);
  EXPECT_EQ(zcuda::path_from_utf8(other->environment.at("HIPBLASLT_TENSILE_LIBPATH")), hip / "lib" / "hipblaslt" / "library");
}

TEST_F(PlanFixture, ALaunchThroughZludaExeIsEncodedForItsJoin) {
  test::write_file(tmp / "runtime" / "zluda.exe", "launcher");
  options.os = Os::windows;
  options.args = {"a b", ""};
  options.launcher_join = LauncherJoin::spaces;
  options.launcher_flags = {"--zluda-trace"};
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->through_launcher);
  const std::string target = zcuda::path_to_utf8(plan->target);
  EXPECT_EQ(plan->args, (std::vector<std::string>{"--zluda-trace", "--", "\"" + target + "\"", "\"a b\"", "\"\""}));
  EXPECT_EQ(to_json(*plan).at("launcher_join"), "spaces");
  // A launcher that cannot carry the arguments refuses before anything starts.
  options.launcher_join = LauncherJoin::no_separator;
  auto refused = prepare_launch(options, {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().hint.find("--direct"), std::string::npos);
  options.direct = true;
  auto direct = prepare_launch(options, {});
  ASSERT_TRUE(direct);
  EXPECT_FALSE(direct->through_launcher);
  EXPECT_EQ(direct->args, options.args);
}

// Real PE files built by the binfmt suite with MinGW-w64 (i686 and x86_64).
fs::path pe_file(const char* arch, const char* name) { return zcuda::path_from_utf8(ZCUDA_TEST_PE_DIR) / arch / name; }

class WindowsProgramFixture : public PlanFixture {
 protected:
  void use(const char* arch, const char* name) {
    if (!fs::exists(pe_file(arch, name))) GTEST_SKIP() << arch << "-w64-mingw32 tools were not found at configure time";
    fs::copy_file(pe_file(arch, name), program, fs::copy_options::overwrite_existing);
    options.os = Os::windows;
    test::write_file(tmp / "runtime" / "zluda.exe", "launcher");
  }
};

TEST_F(WindowsProgramFixture, A32BitProgramWithoutZludas32FolderIsRefusedNamingTheCause) {
  use("i686", "app.exe");
  auto plan = prepare_launch(options, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::unsupported);
  EXPECT_NE(plan.error().message.find("32-bit program"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().hint.find("initialization routine failed"), std::string::npos) << plan.error().hint;
}

TEST_F(WindowsProgramFixture, A32BitProgramUsesZludas32Folder) {
  use("i686", "app.exe");
  test::write_file(tmp / "runtime" / "32" / "zluda.exe", "32-bit launcher");
  test::write_file(tmp / "runtime" / "32" / "nvcuda.dll", "32-bit driver");
  test::write_file(tmp / "runtime" / "zluda64_server.exe", "the server the 32-bit driver starts");
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->is_32bit);
  EXPECT_EQ(plan->program, tmp / "runtime" / "32" / "zluda.exe");
  EXPECT_EQ(plan->runtime_dir, tmp / "runtime" / "32");
  EXPECT_NE(plan->environment.at("PATH").find(zcuda::path_to_utf8(tmp / "runtime" / "32")), std::string::npos);
}

TEST_F(WindowsProgramFixture, A64BitProgramUsesTheRuntimeItself) {
  use("x86_64", "app.exe");
  test::write_file(tmp / "runtime" / "32" / "zluda.exe", "32-bit launcher");
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_FALSE(plan->is_32bit);
  EXPECT_EQ(plan->program, tmp / "runtime" / "zluda.exe");
}

TEST_F(WindowsProgramFixture, AProgramRequiringAdministratorNeedsAnElevatedTerminal) {
  use("x86_64", "app_admin.exe");
  options.elevated = false;
  auto plan = prepare_launch(options, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::environment);
  EXPECT_NE(plan.error().message.find("administrator"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().hint.find("Run as administrator"), std::string::npos) << plan.error().hint;
  EXPECT_NE(plan.error().hint.find("740"), std::string::npos) << plan.error().hint;
  options.elevated = true;
  EXPECT_TRUE(prepare_launch(options, {}));
}

}  // namespace
}  // namespace zcuda::launch
