// A profile's placement into torch/lib under the application's names: journaled like stage,
// undone byte for byte, and a torch/lib the application's installer already patched recognised.
#include <gtest/gtest.h>

#include <map>

#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/stage/stage.hpp>

#include "app_trees.hpp"

namespace zcuda::apps {
namespace {

namespace fs = std::filesystem;
using platform::Os;
using test::TempDir;

// Every file under `dir` (outside zcuda's stage folder) with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (fs::recursive_directory_iterator it(dir), end; it != end; ++it) {
    if (it->path().filename() == ".zcuda-stage") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out[generic_path_to_utf8(it->path().lexically_relative(dir))] = test::read_file(it->path());
  }
  return out;
}

class TorchLibPlacement : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_pe_files()) GTEST_SKIP() << "MinGW's PE test files were not built";
    test::comfyui_tree(dir.path());
    auto profiles = load(std::nullopt);
    ASSERT_TRUE(profiles);
    auto r = recognise(*profiles, Given{dir.path(), {}, Os::windows, false});
    ASSERT_FALSE(r.matches.empty());
    setup = setup_for(r.matches.front(), Os::windows, {});
    ASSERT_TRUE(setup.place_into);
    lib = *setup.place_into;
  }

  stage::PlanOptions options() const {
    stage::PlanOptions o;
    o.app = lib;
    o.runtime_dir = *setup.app_runtime;
    o.os = Os::windows;
    o.names = setup.names;
    return o;
  }

  TempDir dir;
  apps::Setup setup;
  fs::path lib;
};

TEST_F(TorchLibPlacement, PlacesUnderTheInstallersNamesAndUndoesByteForByte) {
  const auto before = snapshot(lib);
  const std::string nvrtc_original = test::read_file(lib / "nvrtc64_112_0.dll");
  auto staged = stage::stage(options());
  ASSERT_TRUE(staged) << staged.error().message;
  EXPECT_EQ(staged->placed, 6u);  // five names and the original NVRTC kept as nvrtc_cuda.dll
  EXPECT_EQ(staged->replaced, 5u);
  const fs::path zluda = dir / "zluda";
  EXPECT_EQ(test::read_file(lib / "cublas64_11.dll"), test::read_file(zluda / "cublas.dll"));
  EXPECT_EQ(test::read_file(lib / "cusparse64_11.dll"), test::read_file(zluda / "cusparse.dll"));
  EXPECT_EQ(test::read_file(lib / "nvrtc64_112_0.dll"), test::read_file(zluda / "nvrtc.dll"));
  EXPECT_EQ(test::read_file(lib / "nvrtc_cuda.dll"), nvrtc_original);
  EXPECT_EQ(test::read_file(lib / "cufft64_10.dll"), test::read_file(zluda / "cufft.dll"));
  EXPECT_EQ(test::read_file(lib / "cufftw64_10.dll"), test::read_file(zluda / "cufftw.dll"));
  EXPECT_EQ(test::read_file(lib / "cudnn64_9.dll"), before.at("cudnn64_9.dll"));  // not in the map: untouched

  // Staging again changes nothing.
  auto again = stage::stage(options());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->placed, 0u);

  auto undone = stage::unstage(lib, false);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(undone->restored, 5u);
  EXPECT_EQ(undone->removed, 1u);
  EXPECT_EQ(snapshot(lib), before);
  EXPECT_FALSE(fs::exists(lib / ".zcuda-stage"));
}

TEST_F(TorchLibPlacement, ATorchLibTheInstallerPatchedIsRecognisedNotBackedUp) {
  // What install-n.bat did: the original NVRTC kept, then lshqqytiger's files copied in.
  const fs::path zluda = dir / "zluda";
  fs::rename(lib / "nvrtc64_112_0.dll", lib / "nvrtc_cuda.dll");
  for (const auto& [from, to] : std::map<std::string, std::string>{{"cublas.dll", "cublas64_11.dll"},
                                                                   {"cusparse.dll", "cusparse64_11.dll"},
                                                                   {"nvrtc.dll", "nvrtc64_112_0.dll"},
                                                                   {"cufft.dll", "cufft64_10.dll"},
                                                                   {"cufftw.dll", "cufftw64_10.dll"}}) {
    // Removed first: MinGW's copy_file takes two files of one drive for the same file (no inode
    // numbers there) and refuses to overwrite.
    fs::remove(lib / to);
    fs::copy_file(zluda / from, lib / to);
  }
  const auto before = snapshot(lib);
  auto plan = stage::make_plan(options());
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->placements.size(), 5u);  // nvrtc_cuda.dll is there already: not kept again
  for (const auto& p : plan->placements) {
    EXPECT_TRUE(p.identical) << p.name;
    EXPECT_TRUE(p.holds_runtime_file) << p.name;
  }
  EXPECT_EQ(plan->changes(), 0u);
  auto staged = stage::stage(options());
  ASSERT_TRUE(staged) << staged.error().message;
  EXPECT_EQ(staged->placed, 0u);
  EXPECT_EQ(staged->unchanged, 5u);
  EXPECT_FALSE(fs::exists(lib / ".zcuda-stage" / "backup"));
  EXPECT_EQ(snapshot(lib), before);
}

TEST_F(TorchLibPlacement, AnotherRuntimesFileIsBackedUpAndSaidToBeZluda) {
  // A ZLUDA file under a name the map gives another file: replaced (and backed up), but never
  // called an original.
  fs::remove(lib / "cusparse64_11.dll");  // as above: MinGW's copy_file will not overwrite
  fs::copy_file(dir / "zluda" / "cublas.dll", lib / "cusparse64_11.dll");
  auto plan = stage::make_plan(options());
  ASSERT_TRUE(plan) << plan.error().message;
  const auto it =
      std::find_if(plan->placements.begin(), plan->placements.end(), [](const stage::Placement& p) { return p.name == "cusparse64_11.dll"; });
  ASSERT_NE(it, plan->placements.end());
  EXPECT_FALSE(it->identical);
  EXPECT_TRUE(it->replaces);
  EXPECT_TRUE(it->holds_runtime_file);
}

TEST_F(TorchLibPlacement, ASourceTheRuntimeLacksIsSaid) {
  fs::remove(dir / "zluda" / "cufftw.dll");
  auto plan = stage::make_plan(options());
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->names.size(), 1u);
  EXPECT_EQ(plan->names[0].name, "cufftw64_10.dll");
  EXPECT_EQ(plan->names[0].service, stage::Service::not_in_runtime);
}

}  // namespace
}  // namespace zcuda::apps
