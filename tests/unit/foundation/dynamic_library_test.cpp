#include <gtest/gtest.h>

#include <zcuda/platform/dynamic_library.hpp>

namespace zcuda::platform {
namespace {

TEST(DynamicLibrary, LoadsARealLibraryAndReportsItsPath) {
  auto lib = DynamicLibrary::open("libz.so.1");
  ASSERT_TRUE(lib) << lib.error().message;
  using ZlibVersion = const char* (*)();
  auto zlib_version = lib->function<ZlibVersion>("zlibVersion");
  ASSERT_NE(zlib_version, nullptr);
  EXPECT_EQ(std::string(zlib_version()).substr(0, 2), "1.");
  EXPECT_NE(lib->path().string().find("libz.so"), std::string::npos);
  EXPECT_EQ(lib->symbol("no_such_symbol_in_zlib"), nullptr);
}

TEST(DynamicLibrary, MissingLibraryIsNotFound) {
  auto lib = DynamicLibrary::open("libzcuda-does-not-exist.so.9");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().kind, ErrorKind::not_found);
  EXPECT_NE(lib.error().message.find("libzcuda-does-not-exist.so.9"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::platform
