// Recognition of application trees built here, and what each profile asks of the launch.
#include <gtest/gtest.h>

#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/base/path_text.hpp>

#include "app_trees.hpp"

namespace zcuda::apps {
namespace {

namespace fs = std::filesystem;
using platform::Os;
using test::TempDir;

std::vector<Profile> profiles() {
  auto loaded = load(std::nullopt);
  EXPECT_TRUE(loaded);
  return loaded ? *loaded : std::vector<Profile>{};
}

Recognition recognise_on(const fs::path& app, Os os, std::vector<std::string> args = {}) {
  return recognise(profiles(), Given{app, std::move(args), os, false});
}

std::string first(const Recognition& r) { return r.matches.empty() ? "(none)" : r.matches.front().profile.name; }

class AppTrees : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_pe_files()) GTEST_SKIP() << "MinGW's PE test files were not built";
  }
  TempDir dir;
};

TEST_F(AppTrees, ComfyUiFromItsLaunchCommand) {
  const fs::path python = test::comfyui_tree(dir.path());
  const auto r = recognise_on(python, Os::windows, {path_to_utf8(dir / "main.py")});
  ASSERT_EQ(first(r), "comfyui-zluda");
  const Match& m = r.matches.front();
  EXPECT_EQ(m.root, dir.path());
  ASSERT_TRUE(m.torch);
  EXPECT_EQ(m.torch->version, "2.7.0+cu118");
  EXPECT_EQ(m.torch->cuda, "11.8");
  EXPECT_TRUE(m.torch->venv);
  // The plain PyTorch profile matches too, after it.
  ASSERT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[1].profile.name, "pytorch");

  const apps::Setup s = setup_for(m, Os::windows, {});
  EXPECT_EQ(s.place_into, dir / "venv" / "Lib" / "site-packages" / "torch" / "lib");
  EXPECT_EQ(s.app_runtime, dir / "zluda");
  EXPECT_FALSE(s.direct);
  EXPECT_EQ(s.names.size(), 5u);
  ASSERT_EQ(s.settings.size(), 3u);
  EXPECT_NE(s.settings[0].why.find("profile comfyui-zluda"), std::string::npos);
  EXPECT_EQ(s.kernels, std::vector<fs::path>{*s.place_into});
  EXPECT_FALSE(s.flavour_problem);
}

TEST_F(AppTrees, ComfyUiFromItsFolder) {
  test::comfyui_tree(dir.path());
  const auto r = recognise_on(dir.path(), Os::windows);
  EXPECT_EQ(first(r), "comfyui-zluda");
  ASSERT_TRUE(r.interpreter);
  EXPECT_EQ(*r.interpreter, dir / "venv" / "Scripts" / "python.exe");
}

TEST_F(AppTrees, LshqqytigerWithATorchNotBuiltForCuda11IsNamed) {
  test::comfyui_tree(dir.path());
  test::write_file(dir / "venv" / "Lib" / "site-packages" / "torch" / "version.py", "__version__ = '2.8.0+cu128'\ncuda = '12.8'\nhip = None\n");
  const auto r = recognise_on(dir.path(), Os::windows);
  ASSERT_EQ(first(r), "comfyui-zluda");
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, {});
  ASSERT_TRUE(s.flavour_problem);
  EXPECT_NE(s.flavour_problem->find("CUDA 12.8"), std::string::npos) << *s.flavour_problem;
  EXPECT_NE(s.flavour_problem->find("+cu118"), std::string::npos);
  // The same torch is fine for upstream's family (the pytorch profile).
  EXPECT_FALSE(setup_for(r.matches[1], Os::windows, {}).flavour_problem);
}

TEST_F(AppTrees, SdNextLoadsItsOwnZluda) {
  test::write_file(dir / "modules" / "zluda_installer.py", "# vladmandic/sdnext\n");
  test::lshqqytiger_runtime(dir / ".zluda");
  const fs::path python = test::windows_venv(dir.path(), "2.7.1+cu118", "11.8");
  const auto r = recognise_on(python, Os::windows, {"launch.py", "--use-zluda"});
  ASSERT_EQ(first(r), "sdnext");
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, {});
  EXPECT_TRUE(s.direct);
  EXPECT_FALSE(s.stage);
  EXPECT_FALSE(s.place_into);
  EXPECT_TRUE(s.settings.empty());
  EXPECT_EQ(s.app_runtime, dir / ".zluda");
}

TEST_F(AppTrees, BlenderAndCyclesKernels) {
  test::pe_copy("x86_64/app.exe", dir / "blender.exe", "blender");
  test::write_file(dir / "4.2" / "scripts" / "addons_core" / "cycles" / "lib" / "kernel_compute_75.ptx.zst", "ptx");
  const auto r = recognise_on(dir / "blender.exe", Os::windows);
  ASSERT_EQ(first(r), "blender");
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, {});
  EXPECT_EQ(s.kernels, std::vector<fs::path>{dir / "4.2" / "scripts" / "addons_core" / "cycles" / "lib"});
  EXPECT_TRUE(r.matches.front().profile.family_default_cc);
  EXPECT_FALSE(s.direct);
}

TEST_F(AppTrees, PhysXGameIs32BitWithPhysXDlls) {
  test::pe_copy("i686/app.exe", dir / "Binaries" / "MirrorsEdge.exe", "game");
  test::pe_copy("i686/nvcuda.dll", dir / "Binaries" / "PhysXLoader.dll", "physx");
  const auto r = recognise_on(dir / "Binaries" / "MirrorsEdge.exe", Os::windows);
  ASSERT_EQ(first(r), "physx-32bit");
  const auto line = steam_launch_option(r.matches.front().profile, path_from_utf8("C:\\Tools\\ZLUDA"));
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, "\"C:\\Tools\\ZLUDA\\32\\zluda.exe\" -- %command%");
  // From the folder too; not on Linux.
  EXPECT_EQ(first(recognise_on(dir / "Binaries", Os::windows)), "physx-32bit");
  EXPECT_EQ(first(recognise_on(dir / "Binaries", Os::linux)), "(none)");
}

TEST_F(AppTrees, A64BitGameWithPhysXIsNotThe32BitProfile) {
  test::pe_copy("x86_64/app.exe", dir / "game.exe", "game64");
  test::pe_copy("x86_64/nvcuda.dll", dir / "PhysXLoader.dll", "physx64");
  const auto r = recognise_on(dir / "game.exe", Os::windows);
  EXPECT_EQ(first(r), "(none)");
  bool said = false;
  for (const auto& miss : r.misses) said |= miss.starts_with("physx-32bit: no i386 program");
  EXPECT_TRUE(said);
}

TEST_F(AppTrees, LlamaCppCudaBuild) {
  test::pe_copy("x86_64/app.exe", dir / "llama-server.exe", "llama");
  test::pe_copy("x86_64/nvcuda.dll", dir / "ggml-cuda.dll", "ggml-cuda");
  const auto r = recognise_on(dir / "llama-server.exe", Os::windows);
  ASSERT_EQ(first(r), "llama-cpp");
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, {});
  EXPECT_TRUE(s.stage);
  EXPECT_FALSE(s.place_into);  // staged as zcuda stage does
  EXPECT_EQ(s.kernels, std::vector<fs::path>{dir.path()});
}

TEST(Recognise, LinuxVenvByItsFiles) {
  TempDir dir;
  test::write_file(dir / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  test::write_file(dir / "venv" / "bin" / "python", "");
  test::write_file(dir / "venv" / "lib" / "python3.11" / "site-packages" / "torch" / "version.py",
                   "__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n");
  const auto r = recognise_on(dir / "venv" / "bin" / "python", Os::linux, {"train.py"});
  ASSERT_EQ(first(r), "pytorch");
  ASSERT_TRUE(r.torch);
  EXPECT_EQ(r.torch->cuda, "13.0");
  EXPECT_EQ(r.torch->found_by, "files");
  const apps::Setup s = setup_for(r.matches.front(), Os::linux, {});
  EXPECT_FALSE(s.place_into);  // Linux: the library path, nothing placed
  ASSERT_EQ(s.settings.size(), 2u);
  EXPECT_EQ(s.settings[1].name, "DISABLE_ADDMM_CUDA_LT");
  // With hipBLASLt kernels the variable is not needed, and the setup says so.
  const apps::Setup with_kernels = setup_for(r.matches.front(), Os::linux, MachineFacts{true});
  ASSERT_EQ(with_kernels.settings.size(), 1u);
  ASSERT_EQ(with_kernels.skipped.size(), 1u);
  EXPECT_NE(with_kernels.skipped[0].find("DISABLE_ADDMM_CUDA_LT"), std::string::npos);
}

TEST(Recognise, AFolderOfNothingMatchesNothingAndSaysWhy) {
  TempDir dir;
  test::write_file(dir / "readme.txt", "");
  const auto r = recognise_on(dir.path(), Os::linux);
  EXPECT_TRUE(r.matches.empty());
  EXPECT_EQ(r.misses.size(), profiles().size());
}

TEST(TorchVersion, ReadsBothSpellings) {
  auto annotated =
      parse_version_py("from typing import Optional\n__version__ = '2.7.0+cu118'\ncuda: Optional[str] = '11.8'\nhip: Optional[str] = None\n");
  EXPECT_EQ(annotated.version, "2.7.0+cu118");
  EXPECT_EQ(annotated.cuda, "11.8");
  EXPECT_FALSE(annotated.hip);
  auto plain = parse_version_py("__version__ = '1.13.0a0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\nhip = None\n");
  EXPECT_EQ(plain.version, "1.13.0a0");
  EXPECT_FALSE(plain.cuda);
  auto rocm = parse_version_py("__version__ = \"2.5.1+rocm6.2\"\ncuda = None\nhip = \"6.2.41133\"\n");
  EXPECT_EQ(rocm.hip, "6.2.41133");
}

TEST(TorchVersion, FlavourProblems) {
  TorchInstall cpu;
  cpu.version = "2.7.0+cpu";
  ASSERT_TRUE(flavour_problem(cpu, family::Family::upstream));
  EXPECT_NE(flavour_problem(cpu, family::Family::upstream)->find("CPU-only"), std::string::npos);
  TorchInstall cu118 = cpu;
  cu118.cuda = "11.8";
  EXPECT_FALSE(flavour_problem(cu118, family::Family::lshqqytiger));
  TorchInstall rocm = cpu;
  rocm.hip = "6.2";
  EXPECT_NE(flavour_problem(rocm, family::Family::upstream)->find("ROCm build"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::apps
