// Which amdhip64 upstream ZLUDA would get on Windows (zluda_hip_choice.hpp), on folders of the
// family suite's MinGW-built stand-ins: lshqqytiger_nvcuda.dll imports amdhip64_6.dll at load
// time, upstream_nvcuda.dll delay-loads amdhip64_7.dll, upstream_library.dll imports neither.
#include <filesystem>

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"
#include "zluda_hip_choice.hpp"

namespace zcuda::detect {
namespace {

namespace fs = std::filesystem;

fs::path part(const char* name) { return fs::path(ZCUDA_TEST_FAMILY_PARTS) / name; }

void put(const char* from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(part(from), to, fs::copy_options::overwrite_existing);
}

class ZludaHipChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(part("upstream_nvcuda.dll"))) GTEST_SKIP() << "MinGW-w64 was not found at configure time";
    put("upstream_library.dll", system32 / "amdhip64_7.dll");
    put("upstream_library.dll", system32 / "amdhip64_6.dll");
  }
  test::TempDir dir;
  fs::path system32 = dir / "System32", sdk_bin = dir / "ROCm" / "bin";
};

// Nothing to load first: the delay load of amdhip64_7.dll goes ahead.
TEST_F(ZludaHipChoiceTest, WithoutPerformanceLibrariesTheNewestInSystem32) {
  auto choice = zluda_hip_choice({sdk_bin}, system32);
  EXPECT_EQ(choice.path, system32 / "amdhip64_7.dll");
  fs::remove(system32 / "amdhip64_7.dll");  // the failure hook loads amdhip64_6.dll
  EXPECT_EQ(zluda_hip_choice({sdk_bin}, system32).path, system32 / "amdhip64_6.dll");
}

// A HIP SDK 6 rocBLAS brings amdhip64_6.dll, and ZLUDA then uses it, though System32 has _7.
TEST_F(ZludaHipChoiceTest, TheRuntimeTheFirstPerformanceLibraryBrings) {
  put("lshqqytiger_nvcuda.dll", sdk_bin / "rocblas.dll");
  auto choice = zluda_hip_choice({sdk_bin}, system32);
  EXPECT_EQ(choice.path, system32 / "amdhip64_6.dll");
  EXPECT_EQ(choice.name, "amdhip64_6.dll");
  EXPECT_NE(choice.why.find("rocblas.dll"), std::string::npos) << choice.why;

  // One beside the library is found before System32's (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR).
  put("upstream_library.dll", sdk_bin / "amdhip64_6.dll");
  EXPECT_EQ(zluda_hip_choice({sdk_bin}, system32).path, sdk_bin / "amdhip64_6.dll");

  // hipBLASLt comes before rocBLAS in upstream's order.
  put("upstream_nvcuda.dll", sdk_bin / "hipblaslt.dll");
  auto first = zluda_hip_choice({sdk_bin}, system32);
  EXPECT_EQ(first.path, system32 / "amdhip64_7.dll");
  EXPECT_NE(first.why.find("hipblaslt.dll"), std::string::npos) << first.why;
}

// A library whose runtime is nowhere fails to load; the next one decides.
TEST_F(ZludaHipChoiceTest, ALibraryWhoseRuntimeIsMissingIsPassedOver) {
  fs::remove(system32 / "amdhip64_7.dll");
  put("upstream_nvcuda.dll", sdk_bin / "hipblaslt.dll");   // needs amdhip64_7.dll: absent
  put("lshqqytiger_nvcuda.dll", sdk_bin / "rocblas.dll");  // needs amdhip64_6.dll
  EXPECT_EQ(zluda_hip_choice({sdk_bin}, system32).path, system32 / "amdhip64_6.dll");
  fs::remove(system32 / "amdhip64_6.dll");
  EXPECT_TRUE(zluda_hip_choice({sdk_bin}, system32).path.empty());
}

}  // namespace
}  // namespace zcuda::detect
