// A torch built for ROCm is recognised from its files (issue 36): torch/version.py's hip, a
// +rocm version, TheRock's distributions beside it. Its setup places nothing and launches natively.
#include <gtest/gtest.h>

#include <zcuda/apps/native_rocm.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::apps {
namespace {

namespace fs = std::filesystem;
using platform::Os;
using test::TempDir;

// A Linux venv (files only) whose torch/version.py says `version` and `hip`; `dists` are
// .dist-info folders beside torch.
fs::path rocm_venv(const fs::path& root, const std::string& version, const std::string& hip, const std::vector<std::string>& dists = {}) {
  test::write_file(root / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  test::write_file(root / "venv" / "bin" / "python", "");
  const fs::path site = root / "venv" / "lib" / "python3.12" / "site-packages";
  test::write_file(site / "torch" / "version.py", "from typing import Optional\n__version__ = '" + version +
                                                      "'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = " + hip + "\n");
  test::write_file(site / "torch" / "__init__.py", "");
  for (const auto& d : dists) test::write_file(site / d / "METADATA", "Name: x\n");
  return root / "venv" / "bin" / "python";
}

Recognition recognise_on(const fs::path& app) {
  auto loaded = load(std::nullopt);
  EXPECT_TRUE(loaded);
  return recognise(loaded ? *loaded : std::vector<Profile>{}, Given{app, {"main.py"}, Os::linux, false});
}

TEST(NativeRocm, AFakeRocmVenvIsNativeAndNeedsNoZluda) {
  TempDir dir;
  const auto python =
      rocm_venv(dir.path(), "2.11.0+rocm7.13.0", "'7.13.0'", {"rocm_sdk_core-7.13.0.dist-info", "amd_torch_device_gfx1100-2.11.0.dist-info"});
  const Recognition r = recognise_on(python);
  ASSERT_FALSE(r.matches.empty());
  EXPECT_EQ(r.matches.front().profile.name, "pytorch");
  ASSERT_TRUE(r.torch);
  const auto rocm = native_rocm(*r.torch);
  ASSERT_TRUE(rocm);
  EXPECT_TRUE(rocm->therock);
  ASSERT_EQ(rocm->why.size(), 3u);
  EXPECT_EQ(rocm->why[0], "torch/version.py: hip = '7.13.0'");
  EXPECT_EQ(rocm->why[1], "version 2.11.0+rocm7.13.0");
  EXPECT_NE(rocm->why[2].find("amd_torch_device_gfx1100-2.11.0.dist-info, rocm_sdk_core-7.13.0.dist-info"), std::string::npos) << rocm->why[2];

  const apps::Setup s = setup_for(r.matches.front(), Os::linux, {});
  ASSERT_TRUE(s.native_rocm);
  EXPECT_TRUE(s.native_rocm->starts_with("native ROCm: no ZLUDA needed (torch 2.11.0+rocm7.13.0 is built for ROCm, from TheRock")) << *s.native_rocm;
  EXPECT_FALSE(s.flavour_problem);  // not a problem
  EXPECT_FALSE(s.stage);
  EXPECT_FALSE(s.place_into);
  EXPECT_TRUE(s.direct);
  EXPECT_TRUE(s.settings.empty());  // the profile's ZLUDA variables are not set...
  ASSERT_FALSE(s.skipped.empty());  // ...and it says so
  EXPECT_NE(s.skipped[0].find("native ROCm build"), std::string::npos);
}

TEST(NativeRocm, EachSignAlone) {
  TempDir hip, plus, therock, cuda;
  auto by = [](const fs::path& python) {
    const Recognition r = recognise_on(python);
    EXPECT_TRUE(r.torch);
    return r.torch ? native_rocm(*r.torch) : std::nullopt;
  };
  EXPECT_TRUE(by(rocm_venv(hip.path(), "2.5.1", "'6.2.41133'")));
  EXPECT_TRUE(by(rocm_venv(plus.path(), "2.5.1+rocm6.2", "None")));
  // TheRock's multi-arch torch: its distributions name it even where version.py would not.
  const auto from_dists = by(rocm_venv(therock.path(), "2.11.0", "None", {"rocm_sdk_libraries-7.13.0a20260801.dist-info"}));
  ASSERT_TRUE(from_dists);
  EXPECT_TRUE(from_dists->therock);
  // A CUDA build beside an unrelated package is not native.
  EXPECT_FALSE(by(rocm_venv(cuda.path(), "2.7.0+cu118", "None", {"rocm_smi-1.0.dist-info"})));
}

}  // namespace
}  // namespace zcuda::apps
