// A 32-bit program: ZLUDA's 32-bit nvcuda.dll starts zluda64_server.exe from the folder above its
// own, else from ZLUDA64_PATH, and gives up when the server comes from another build
// (zluda32/src/ipc.rs). zcuda sets ZLUDA64_PATH to the runtime and checks, before anything
// starts, that each server the DLL would start is there and of its build (the git commit both
// embed). The program is a real i686 PE built by the binfmt suite; the DLL and server stand in
// with the commit string their builds embed.
#include <gtest/gtest.h>

#include <zcuda/base/error.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/launch/launch.hpp>

#include "plan_fixture.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using platform::Os;

constexpr const char* kBuild = "8a7931be87d758835776f54ea2e33d30621c74ce";
constexpr const char* kOtherBuild = "58d90b0b0000000000000000000000000000abcd";

// Bytes around the commit as a Rust binary's read-only data has them: other strings, no NUL.
std::string binary_naming(const std::string& commit) { return std::string("MZ\x90\x00 Startup", 11) + "Git version mismatch" + commit + "zluda64"; }

class Server32 : public test_support::PlanFixture {
 protected:
  void SetUp() override {
    PlanFixture::SetUp();
    const fs::path app = fs::path(path_from_utf8(ZCUDA_TEST_PE_DIR)) / "i686" / "app.exe";
    if (!fs::exists(app)) GTEST_SKIP() << "i686-w64-mingw32 tools were not found at configure time";
    fs::copy_file(app, program, fs::copy_options::overwrite_existing);
    options.os = Os::windows;
    test::write_file(runtime / "zluda.exe", "launcher");
    test::write_file(runtime / "32" / "zluda.exe", "32-bit launcher");
    test::write_file(runtime / "32" / "nvcuda.dll", binary_naming(kBuild));
    test::write_file(runtime / "zluda64_server.exe", binary_naming(kBuild));
  }
};

TEST_F(Server32, ZludaPathNamesTheRuntimeWhoseServerMatchesTheDll) {
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->is_32bit);
  EXPECT_EQ(path_from_utf8(plan->environment.at("ZLUDA64_PATH")), runtime);
  EXPECT_NE(change(*plan, "ZLUDA64_PATH")->why.find("zluda64_server.exe"), std::string::npos);
  options.direct = true;
  auto direct = prepare_launch(options, {});
  ASSERT_TRUE(direct) << direct.error().message;
  EXPECT_EQ(path_from_utf8(direct->environment.at("ZLUDA64_PATH")), runtime);
}

TEST_F(Server32, AMissingServerIsRefused) {
  fs::remove(runtime / "zluda64_server.exe");
  auto plan = prepare_launch(options, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::not_found);
  EXPECT_NE(plan.error().message.find("zluda64_server.exe"), std::string::npos) << plan.error().message;
}

TEST_F(Server32, AServerOfAnotherBuildIsRefused) {
  test::write_file(runtime / "zluda64_server.exe", binary_naming(kOtherBuild));
  auto plan = prepare_launch(options, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::unsupported);
  EXPECT_NE(plan.error().message.find("different ZLUDA builds"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().message.find(kBuild), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().hint.find("Git version mismatch"), std::string::npos) << plan.error().hint;
}

// With --direct the DLL is the one in the program's folder (staged there), which starts the
// server in the folder above the program's when there is one: one of another build is refused.
TEST_F(Server32, DirectLaunchChecksTheServerAboveTheProgramsFolder) {
  test::write_file(program.parent_path().parent_path() / "zluda64_server.exe", binary_naming(kOtherBuild));
  EXPECT_TRUE(prepare_launch(options, {}));  // through 32\zluda.exe the runtime's own DLL is used
  options.direct = true;
  auto direct = prepare_launch(options, {});
  ASSERT_FALSE(direct);
  EXPECT_EQ(direct.error().kind, ErrorKind::unsupported);
  EXPECT_NE(direct.error().message.find(path_to_utf8(program.parent_path().parent_path())), std::string::npos) << direct.error().message;
}

TEST_F(Server32, ADllThatNamesNoCommitCannotBeComparedAndPasses) {
  test::write_file(runtime / "32" / "nvcuda.dll", "a 32-bit driver without a commit string");
  test::write_file(runtime / "zluda64_server.exe", binary_naming(kOtherBuild));
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->environment.contains("ZLUDA64_PATH"));
}

}  // namespace
}  // namespace zcuda::launch
