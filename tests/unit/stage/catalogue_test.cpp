#include <algorithm>

#include <gtest/gtest.h>

#include <zcuda/stage/catalogue.hpp>
#include <zcuda/stage/plan.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::stage {
namespace {

using platform::Os;
namespace fs = std::filesystem;

TEST(Catalogue, WindowsNamesZludaServesMatchCaseInsensitively) {
  for (const char* name : {"nvcuda.dll", "NVCUDA.DLL", "nvml.dll", "cublas64_11.dll", "cublasLt64_12.dll", "CUBLASLT64_13.DLL", "cusparse64_10.dll",
                           "cufft64_11.dll", "cudnn64_9.dll"}) {
    EXPECT_TRUE(served_family(name, Os::windows)) << name;
  }
  EXPECT_TRUE(served_family("nvcuda.dll", Os::windows)->driver_level);
  EXPECT_FALSE(served_family("cublas64_11.dll", Os::windows)->driver_level);
  EXPECT_FALSE(served_family("cufft64_10.dll", Os::windows)->stub_note.empty());  // a stub, and says so
  EXPECT_FALSE(served_family("nvml.dll", Os::windows)->stub_note.empty());
  for (const char* name : {"cudart64_110.dll", "cufftw64_10.dll", "nvcuda.so", "zluda.exe", "kernel32.dll", "cublas.dll"}) {
    EXPECT_FALSE(served_family(name, Os::windows)) << name;
  }
}

// ZLUDA serves NVAPI (PhysX asks it about the GPU): nvapi64.dll, and nvapi.dll in its 32 folder
// (zluda_windows/src/lib.rs, LIBRARIES). NVIDIA's driver keeps it in the system folder and it is
// loaded by name, so it goes next to the program as the driver does.
TEST(Catalogue, NvapiIsServedAndPlacedLikeTheDriver) {
  for (const char* name : {"nvapi64.dll", "NVAPI64.DLL", "nvapi.dll"}) {
    ASSERT_TRUE(served_family(name, Os::windows)) << name;
    EXPECT_EQ(served_family(name, Os::windows)->id, "nvapi");
    EXPECT_TRUE(served_family(name, Os::windows)->driver_level);
  }
  EXPECT_FALSE(served_family("nvapi32.dll", Os::windows));
  EXPECT_FALSE(served_family("libnvapi.so", Os::linux));
}

TEST(Catalogue, NvidiaOnlyNamesAreNamed) {
  EXPECT_EQ(nvidia_only_library("cudart64_110.dll", Os::windows), "CUDA runtime (cudart)");
  EXPECT_EQ(nvidia_only_library("nvrtc64_112_0.dll", Os::windows), "NVRTC");
  EXPECT_EQ(nvidia_only_library("curand64_10.dll", Os::windows), "cuRAND");
  EXPECT_EQ(nvidia_only_library("cusolver64_11.dll", Os::windows), "cuSOLVER");
  EXPECT_EQ(nvidia_only_library("libcudart.so.12", Os::linux), "CUDA runtime (cudart)");
  EXPECT_FALSE(nvidia_only_library("cublas64_11.dll", Os::windows));
}

TEST(Catalogue, LinuxNamesAreCaseSensitive) {
  EXPECT_TRUE(served_family("libcuda.so.1", Os::linux));
  EXPECT_TRUE(served_family("libcublasLt.so.12", Os::linux));
  EXPECT_TRUE(served_family("libnvidia-ml.so.1", Os::linux));
  EXPECT_TRUE(served_family("libcudnn.so.9", Os::linux));
  EXPECT_FALSE(served_family("LIBCUDA.so.1", Os::linux));
  EXPECT_FALSE(served_family("libcudart.so.12", Os::linux));
}

TEST(Catalogue, CudnnNeedsMiopen) {
  auto cudnn = *served_family("cudnn64_9.dll", Os::windows);
  EXPECT_FALSE(has_backend(cudnn, Backends{}));
  EXPECT_TRUE(has_backend(cudnn, Backends{true, "MIOpen.dll"}));
  EXPECT_TRUE(has_backend(*served_family("cublas64_12.dll", Os::windows), Backends{}));
}

TEST(Catalogue, ScanRuntimeNeedsTheDriver) {
  test::TempDir dir;
  test::write_file(dir / "cublas64_12.dll", "x");
  auto without = scan_runtime(dir.path(), Os::windows);
  ASSERT_FALSE(without);
  EXPECT_EQ(without.error().kind, ErrorKind::not_found);
  test::write_file(dir / "nvcuda.dll", "x");
  test::write_file(dir / "zluda.exe", "x");
  test::write_file(dir / "nvcudart_hybrid64.dll", "x");
  auto with = scan_runtime(dir.path(), Os::windows);
  ASSERT_TRUE(with) << with.error().message;
  EXPECT_EQ(with->size(), 3u);  // nvcuda, cublas, the companion; not zluda.exe
  EXPECT_FALSE(scan_runtime(dir / "missing", Os::windows));
}

// The plan for a Windows program, made from MinGW-built PE files: the driver next to the
// program, its companion beside it, cuBLAS where a file of that name is, cuDNN only with MIOpen.
TEST(Plan, WindowsProgramFromRealPeFiles) {
  const fs::path exe = fs::path(ZCUDA_TEST_PE_DIR) / "x86_64" / "app_delay.exe";
  if (!fs::exists(exe)) GTEST_SKIP() << "x86_64-w64-mingw32-gcc was not found at configure time";
  test::TempDir dir;
  fs::create_directories(dir / "app" / "lib");
  fs::copy_file(exe, dir / "app" / "App.exe");
  test::write_file(dir / "app" / "lib" / "CUBLAS64_12.DLL", "the app's own cuBLAS");
  test::write_file(dir / "app" / "cudnn64_9.dll", "the app's own cuDNN");
  test::write_file(dir / "app" / "cudart64_12.dll", "NVIDIA's runtime");
  for (const char* name : {"nvcuda.dll", "nvcudart_hybrid64.dll", "nvml.dll", "nvapi64.dll", "cublas64_12.dll", "cudnn64_9.dll"}) {
    test::write_file(dir / "rt" / name, std::string("zluda ") + name);
  }
  PlanOptions options;
  options.app = dir / "app" / "App.exe";
  options.runtime_dir = dir / "rt";
  options.os = Os::windows;
  auto plan = make_plan(options);
  ASSERT_TRUE(plan) << plan.error().message;
  std::vector<std::string> paths;
  for (const auto& p : plan->placements) paths.push_back(p.relative.generic_string());
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"lib/CUBLAS64_12.DLL", "nvapi64.dll", "nvcuda.dll", "nvcudart_hybrid64.dll", "nvml.dll"}));
  ASSERT_EQ(plan->names.size(), 1u);  // the delay-imported nvcuda.dll
  EXPECT_EQ(plan->names[0].name, "nvcuda.dll");
  EXPECT_EQ(plan->names[0].service, Service::served);

  options.backends = Backends{true, "test"};
  auto with_miopen = make_plan(options);
  ASSERT_TRUE(with_miopen);
  EXPECT_TRUE(std::any_of(with_miopen->placements.begin(), with_miopen->placements.end(),
                          [](const Placement& p) { return p.name == "cudnn64_9.dll" && p.replaces; }));
}

// A 32-bit program takes the runtime's 32 folder (ZLUDA's 32-bit nvcuda.dll and nvapi.dll), read
// from the program's PE header; a runtime without one is refused, naming why; a 64-bit program
// given a 32 folder is refused too. Real PE files built with MinGW (i686 and x86_64).
TEST(Plan, AThirtyTwoBitProgramTakesTheRuntimes32Folder) {
  const fs::path pe = fs::path(ZCUDA_TEST_PE_DIR);
  if (!fs::exists(pe / "i686" / "app.exe") || !fs::exists(pe / "x86_64" / "app.exe")) GTEST_SKIP() << "MinGW-w64 was not found at configure time";
  test::TempDir dir;
  fs::create_directories(dir / "app");
  fs::copy_file(pe / "i686" / "app.exe", dir / "app" / "game.exe");
  fs::create_directories(dir / "rt");
  fs::copy_file(pe / "x86_64" / "nvcuda.dll", dir / "rt" / "nvcuda.dll");
  test::write_file(dir / "rt" / "nvapi64.dll", "64-bit nvapi");
  PlanOptions options;
  options.app = dir / "app" / "game.exe";
  options.runtime_dir = dir / "rt";
  options.os = Os::windows;
  auto refused = make_plan(options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::unsupported);
  EXPECT_NE(refused.error().message.find("32-bit program"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().hint.find("initialization routine failed"), std::string::npos) << refused.error().hint;

  fs::create_directories(dir / "rt" / "32");
  fs::copy_file(pe / "i686" / "nvcuda.dll", dir / "rt" / "32" / "nvcuda.dll");
  test::write_file(dir / "rt" / "32" / "nvapi.dll", "32-bit nvapi");
  auto plan = make_plan(options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime_dir, fs::weakly_canonical(dir / "rt" / "32"));
  std::vector<std::string> names;
  for (const auto& p : plan->placements) {
    names.push_back(p.name);
    EXPECT_EQ(p.source.parent_path(), fs::canonical(dir / "rt" / "32")) << p.name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"nvapi.dll", "nvcuda.dll"}));

  // The 32 folder given as the runtime (as run passes it) is used as it is.
  options.runtime_dir = dir / "rt" / "32";
  auto given32 = make_plan(options);
  ASSERT_TRUE(given32) << given32.error().message;
  EXPECT_EQ(given32->runtime_dir, fs::weakly_canonical(dir / "rt" / "32"));

  // ... but not for a 64-bit program.
  fs::copy_file(pe / "x86_64" / "app.exe", dir / "app" / "tool.exe");
  options.app = dir / "app" / "tool.exe";
  auto wrong = make_plan(options);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().kind, ErrorKind::usage);
  EXPECT_NE(wrong.error().message.find("64-bit program"), std::string::npos) << wrong.error().message;
}

TEST(Plan, RuntimeInsideTheAppFolderIsRefused) {
  test::TempDir dir;
  test::write_file(dir / "app" / "rt" / "libcuda.so.1", "x");
  PlanOptions options;
  options.app = dir / "app";
  options.runtime_dir = dir / "app" / "rt";
  options.os = Os::linux;
  auto plan = make_plan(options);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace zcuda::stage
