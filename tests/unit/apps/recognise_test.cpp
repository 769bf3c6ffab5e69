// Recognition of application trees built here, and what each profile asks of the launch.
#include <gtest/gtest.h>

#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/base/path_text.hpp>

#include "app_trees.hpp"
#include "support/environment.hpp"

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
  // lshqqytiger's ZLUDA has no zluda_precompile: no kernels are offered to zcuda warmup.
  EXPECT_TRUE(s.kernels.empty());
  EXPECT_EQ(m.profile.warmup.kind, Warmup::Kind::none);
  EXPECT_NE(m.profile.notes.back().find("zluda.db"), std::string::npos);
  EXPECT_FALSE(s.flavour_problem);
}

TEST_F(AppTrees, ComfyUiFromItsFolder) {
  test::comfyui_tree(dir.path());
  const auto r = recognise_on(dir.path(), Os::windows);
  EXPECT_EQ(first(r), "comfyui-zluda");
  ASSERT_TRUE(r.interpreter);
  EXPECT_EQ(*r.interpreter, dir / "venv" / "Scripts" / "python.exe");
}

// comfy/zluda.py drops PATH entries containing "rocm" (any case) as ComfyUI starts: the
// HIP SDK's bin zcuda puts first is among them, and the setup says so.
TEST(Setup, ComfyUiDropsRocmEntriesFromItsPath) {
  const auto all = profiles();
  const Profile* comfy = find(all, "comfyui-zluda");
  ASSERT_TRUE(comfy && comfy->drops_path);
  EXPECT_EQ(dropped_path_entries(*comfy, "C:\\app;C:\\Program Files\\AMD\\ROCm\\6.2\\bin;C:\\Windows;D:\\rocm-tools", Os::windows),
            (std::vector<std::string>{"C:\\Program Files\\AMD\\ROCm\\6.2\\bin", "D:\\rocm-tools"}));
  EXPECT_TRUE(dropped_path_entries(*comfy, "C:\\app;C:\\HIP\\bin", Os::windows).empty());
  EXPECT_TRUE(dropped_path_entries(*find(all, "pytorch"), "C:\\ROCm\\bin", Os::windows).empty());
}

// ComfyUI-Zluda and SD.Next use ZLUDA on Windows only (sdnext installer.py: "ZLUDA is only
// supported on Windows"; ComfyUI-Zluda's launchers are .bat files): on Linux they are not theirs.
TEST_F(AppTrees, TheLshqqytigerAppsAreWindowsOnly) {
  test::comfyui_tree(dir.path());
  test::write_file(dir / "modules" / "zluda_installer.py", "# vladmandic/sdnext\n");
  const auto r = recognise_on(dir.path(), Os::linux);
  for (const auto& m : r.matches) {
    EXPECT_NE(m.profile.name, "comfyui-zluda");
    EXPECT_NE(m.profile.name, "sdnext");
  }
  bool said = false;
  for (const auto& miss : r.misses) said |= miss == "sdnext: not for linux";
  EXPECT_TRUE(said);
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
  MachineFacts facts;
  facts.environment = platform::Environment{};
  facts.working_dir = dir.path();
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, facts);
  EXPECT_TRUE(s.direct);
  EXPECT_FALSE(s.stage);
  EXPECT_FALSE(s.place_into);
  EXPECT_TRUE(s.settings.empty());
  EXPECT_EQ(s.app_runtime, dir / ".zluda");
  EXPECT_FALSE(s.app_runtime_missing);
}

// SD.Next looks for os.path.abspath(os.environ.get('ZLUDA', '.zluda')): $ZLUDA, else .zluda,
// relative to the working folder (vladmandic/sdnext modules/zluda_installer.py). A folder that
// is not there is said, with where the application's own is.
TEST_F(AppTrees, SdNextFindsItsZludaAsItsInstallerDoes) {
  test::write_file(dir / "modules" / "zluda_installer.py", "# vladmandic/sdnext\n");
  test::lshqqytiger_runtime(dir / ".zluda");
  test::lshqqytiger_runtime(dir / "elsewhere" / "zl");
  const auto r = recognise_on(dir.path(), Os::windows);
  ASSERT_EQ(first(r), "sdnext");
  MachineFacts facts;
  facts.environment = platform::Environment{{"zluda", "zl"}};  // Windows: names without regard to case
  facts.working_dir = dir / "elsewhere";
  const apps::Setup named = setup_for(r.matches.front(), Os::windows, facts);
  EXPECT_EQ(named.app_runtime, dir / "elsewhere" / "zl");

  facts.environment = platform::Environment{};
  const apps::Setup from_elsewhere = setup_for(r.matches.front(), Os::windows, facts);
  EXPECT_FALSE(from_elsewhere.app_runtime);
  ASSERT_TRUE(from_elsewhere.app_runtime_missing);
  EXPECT_NE(from_elsewhere.app_runtime_missing->find(path_to_utf8(dir / "elsewhere" / ".zluda")), std::string::npos)
      << *from_elsewhere.app_runtime_missing;
  EXPECT_NE(from_elsewhere.app_runtime_missing->find("start it from " + path_to_utf8(dir.path())), std::string::npos)
      << *from_elsewhere.app_runtime_missing;

  facts.environment = platform::Environment{{"ZLUDA", path_to_utf8(dir / "missing")}};
  const apps::Setup named_missing = setup_for(r.matches.front(), Os::windows, facts);
  ASSERT_TRUE(named_missing.app_runtime_missing);
  EXPECT_NE(named_missing.app_runtime_missing->find("$ZLUDA="), std::string::npos) << *named_missing.app_runtime_missing;
}

TEST_F(AppTrees, BlenderAndCyclesKernels) {
  test::pe_copy("x86_64/app.exe", dir / "blender.exe", "blender");
  test::write_file(dir / "4.2" / "scripts" / "addons_core" / "cycles" / "lib" / "kernel_compute_75.ptx.zst", "ptx");
  const auto r = recognise_on(dir / "blender.exe", Os::windows);
  ASSERT_EQ(first(r), "blender");
  const apps::Setup s = setup_for(r.matches.front(), Os::windows, {});
  EXPECT_EQ(s.kernels, std::vector<fs::path>{dir / "4.2" / "scripts" / "addons_core" / "cycles" / "lib"});
  EXPECT_EQ(r.matches.front().profile.compute_capability, "8.5");
  EXPECT_FALSE(s.direct);
}

// Blender 3.6 to 4.1 keep Cycles in scripts/addons (blender/cycles src/CMakeLists.txt before 31ae1e6de).
TEST_F(AppTrees, BlenderBefore42KeepsCyclesInScriptsAddons) {
  test::pe_copy("x86_64/app.exe", dir / "blender.exe", "blender");
  test::write_file(dir / "4.1" / "scripts" / "addons" / "cycles" / "lib" / "kernel_compute_75.ptx.zst", "ptx");
  const auto r = recognise_on(dir / "blender.exe", Os::windows);
  ASSERT_EQ(first(r), "blender");
  EXPECT_EQ(setup_for(r.matches.front(), Os::windows, {}).kernels, std::vector<fs::path>{dir / "4.1" / "scripts" / "addons" / "cycles" / "lib"});
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

// From the repository's root: `cmake -B build` puts the libraries in build/bin (llama.cpp's
// CMAKE_RUNTIME_OUTPUT_DIRECTORY), and MSVC's multi-configuration build in build/bin/Release.
TEST_F(AppTrees, LlamaCppFromItsRepositoryRoot) {
  TempDir msvc, make;
  test::pe_copy("x86_64/nvcuda.dll", msvc / "build" / "bin" / "Release" / "ggml-cuda.dll", "ggml-cuda");
  test::write_file(make / "build" / "bin" / "libggml-cuda.so",
                   "\x7f"
                   "ELF");
  EXPECT_EQ(first(recognise_on(msvc.path(), Os::windows)), "llama-cpp");
  EXPECT_EQ(first(recognise_on(msvc / "build" / "bin" / "Release", Os::windows)), "llama-cpp");
  EXPECT_EQ(first(recognise_on(make.path(), Os::linux)), "llama-cpp");
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
  MachineFacts kernels;
  kernels.hipblaslt_kernels = true;
  const apps::Setup with_kernels = setup_for(r.matches.front(), Os::linux, kernels);
  ASSERT_EQ(with_kernels.settings.size(), 1u);
  ASSERT_EQ(with_kernels.skipped.size(), 1u);
  EXPECT_NE(with_kernels.skipped[0].find("DISABLE_ADDMM_CUDA_LT"), std::string::npos);
}

// pip install --user: site.py's user site-packages, found from files as the interpreter would.
TEST(UserSite, WhereSitePyPutsIt) {
  TempDir dir;
  test::write_file(dir / "Python311" / "python.exe", "");
  test::write_file(dir / "Python311" / "python311.dll", "");
  EXPECT_EQ(user_site_packages(dir / "Python311" / "python.exe", Os::windows, {{"APPDATA", "C:\\Users\\me\\AppData\\Roaming"}}),
            path_from_utf8("C:\\Users\\me\\AppData\\Roaming") / "Python" / "Python311" / "site-packages");
  EXPECT_EQ(user_site_packages(dir / "Python311" / "python.exe", Os::windows, {{"APPDATA", "C:\\x"}, {"PYTHONNOUSERSITE", "1"}}), std::nullopt);
  test::write_file(dir / "usr" / "bin" / "python3.12", "");
  EXPECT_EQ(user_site_packages(dir / "usr" / "bin" / "python3.12", Os::linux, {{"HOME", "/home/me"}}),
            fs::path("/home/me/.local/lib/python3.12/site-packages"));
  EXPECT_EQ(user_site_packages(dir / "usr" / "bin" / "python3.12", Os::linux, {{"HOME", "/home/me"}, {"PYTHONUSERBASE", "/opt/u"}}),
            fs::path("/opt/u/lib/python3.12/site-packages"));
  // A venv sees the user's packages only when it includes the system's.
  test::write_file(dir / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
  test::write_file(dir / "venv" / "bin" / "python", "");
  EXPECT_EQ(user_site_packages(dir / "venv" / "bin" / "python", Os::linux, {{"HOME", "/home/me"}}), std::nullopt);
  test::write_file(dir / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.12.3\n");
  EXPECT_EQ(user_site_packages(dir / "venv" / "bin" / "python", Os::linux, {{"HOME", "/home/me"}}),
            fs::path("/home/me/.local/lib/python3.12/site-packages"));
}

#ifndef _WIN32
TEST(UserSite, TorchInstalledWithPipUserIsFound) {
  TempDir dir;
  test::write_file(dir / "base" / "bin" / "python3.11", "");
  test::write_file(dir / "user" / "lib" / "python3.11" / "site-packages" / "torch" / "version.py",
                   "__version__ = '2.7.1+cu118'\ncuda: Optional[str] = '11.8'\nhip: Optional[str] = None\n");
  test::ScopedEnv base("PYTHONUSERBASE", path_to_utf8(dir / "user"));
  test::ScopedEnv on("PYTHONNOUSERSITE", std::nullopt);
  const auto torch = find_torch(dir / "base" / "bin" / "python3.11", Os::linux, false);
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->package, dir / "user" / "lib" / "python3.11" / "site-packages" / "torch");
  EXPECT_EQ(torch->version, "2.7.1+cu118");
  EXPECT_EQ(torch->found_by, "files (the user's site-packages)");
  test::ScopedEnv off("PYTHONNOUSERSITE", "1");
  EXPECT_FALSE(find_torch(dir / "base" / "bin" / "python3.11", Os::linux, false));
}
#endif

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
