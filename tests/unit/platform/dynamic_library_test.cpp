#include <gtest/gtest.h>

#include <zcuda/platform/dynamic_library.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::platform {
namespace {

// zlib, a real shared library: the system's on Linux; on Windows the zlib1.dll the build copied
// beside this test program, which the standard search order finds in the program's own folder.
#ifdef _WIN32
constexpr const char* kZlib = "zlib1.dll";
#else
constexpr const char* kZlib = "libz.so.1";
#endif

TEST(DynamicLibrary, LoadsARealLibraryAndReportsItsPath) {
#if defined(_WIN32) && !defined(ZCUDA_TEST_HAVE_ZLIB_DLL)
  GTEST_SKIP() << "no zlib1.dll was found at configure time to put beside the test";
#else
  auto lib = DynamicLibrary::open(kZlib);
  ASSERT_TRUE(lib) << lib.error().message;
  using ZlibVersion = const char* (*)();
  auto zlib_version = lib->function<ZlibVersion>("zlibVersion");
  ASSERT_NE(zlib_version, nullptr);
  EXPECT_EQ(std::string(zlib_version()).substr(0, 2), "1.");
#ifdef _WIN32
  EXPECT_EQ(lib->path().filename(), kZlib);
  EXPECT_EQ(lib->path().parent_path(), std::filesystem::path(ZCUDA_TEST_SELF_DIR).make_preferred());
#else
  EXPECT_NE(lib->path().string().find("libz.so"), std::string::npos);
#endif
  EXPECT_EQ(lib->symbol("no_such_symbol_in_zlib"), nullptr);
#endif
}

TEST(DynamicLibrary, MissingLibraryIsNotFound) {
  auto lib = DynamicLibrary::open("libzcuda-does-not-exist.so.9");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().kind, ErrorKind::not_found);
  EXPECT_NE(lib.error().message.find("libzcuda-does-not-exist.so.9"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::platform
