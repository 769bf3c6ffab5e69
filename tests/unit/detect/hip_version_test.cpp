// Where detection reads a HIP install's version from, on captured trees made here: the header,
// a distribution's library file name, and a versioned folder's name (read without std::regex).
#include <fstream>

#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>

#include "detect_test_util.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::detect {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& file, const std::string& text = "x") {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

const HipInstall* install_at(const Profile& p, const std::string& root) {
  for (const auto& h : p.hip_installs) {
    if (h.root == root) return &h;
  }
  return nullptr;
}

Profile detect_tree(const fs::path& root) {
  Options options;
  options.root = root;
  return testing::detect_with(options);
}

TEST(HipVersion, FromTheHeaderTheLibraryNameAndTheFolderName) {
  test::TempDir tree;
  // /opt/rocm-6.4.1: no .info/version, a header with major, minor and patch.
  touch(tree.path() / "opt/rocm-6.4.1/lib/libamdhip64.so.6");
  touch(tree.path() / "opt/rocm-6.4.1/include/hip/hip_version.h",
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n#define HIP_VERSION_PATCH 43483\n");
  // /opt/rocm-5.7: neither: the folder's name.
  touch(tree.path() / "opt/rocm-5.7/lib/libamdhip64.so.5");
  // Debian's packages in /usr: the library's file name (a name without a dotted version first).
  touch(tree.path() / "usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
  touch(tree.path() / "usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153");
  const Profile p = detect_tree(tree.path());

  const HipInstall* header = install_at(p, "/opt/rocm-6.4.1");
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(header->version, "6.4.43483");
  EXPECT_EQ(header->version_source, "include/hip/hip_version.h");
  const HipInstall* folder = install_at(p, "/opt/rocm-5.7");
  ASSERT_NE(folder, nullptr);
  EXPECT_EQ(folder->version, "5.7");
  EXPECT_EQ(folder->version_source, "folder name");
  const HipInstall* system = install_at(p, "/usr");
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->version, "5.2.21153");
  EXPECT_EQ(system->version_source, "library file name");
}

// /usr counts as a HIP install only through the names the loader finds it by (the soname link
// ldconfig makes, or the development link); without them its library folders are not listed.
TEST(HipVersion, TheSystemPrefixCountsThroughTheRuntimesSoname) {
  test::TempDir tree;
  touch(tree.path() / "usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153");
  touch(tree.path() / "usr/lib/x86_64-linux-gnu/librocblas.so.0");
  EXPECT_EQ(install_at(detect_tree(tree.path()), "/usr"), nullptr);
  touch(tree.path() / "usr/lib/x86_64-linux-gnu/libamdhip64.so.5");
  const Profile p = detect_tree(tree.path());
  const HipInstall* system = install_at(p, "/usr");
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->version, "5.2.21153");
}

TEST(HipVersion, ANameThatIsNoVersionGivesNone) {
  test::TempDir tree;
  touch(tree.path() / "opt/rocm-latest/lib/libamdhip64.so.6");
  touch(tree.path() / "opt/rocm-latest/include/hip/hip_version.h", "#define HIP_VERSION_MAJOR six\n");
  const Profile p = detect_tree(tree.path());
  const HipInstall* install = install_at(p, "/opt/rocm-latest");
  ASSERT_NE(install, nullptr);
  EXPECT_EQ(install->version, "");
}

}  // namespace
}  // namespace zcuda::detect
