// platform::list_folder: the names and kinds of a real folder's entries, in one pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/folder_listing.hpp>

#include "support/temp_dir.hpp"

namespace zcuda {
namespace {

namespace fs = std::filesystem;

platform::EntryKind kind_of(const std::vector<platform::FolderEntry>& entries, const std::string& name) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const platform::FolderEntry& e) { return e.name == name; });
  EXPECT_NE(it, entries.end()) << name;
  return it == entries.end() ? platform::EntryKind::other : it->kind;
}

TEST(FolderListing, NamesAndKindsWithoutDotEntries) {
  test::TempDir dir;
  std::ofstream(dir.path() / "nvcuda.dll") << "x";
  fs::create_directory(dir.path() / "lib");
  // A name beyond ASCII comes back as UTF-8 (Windows lists it as UTF-16).
  const std::string unicode = "caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.so";
  std::ofstream(dir.path() / path_from_utf8(unicode)) << "y";
  auto entries = platform::list_folder(dir.path());
  ASSERT_TRUE(entries) << entries.error().message;
  EXPECT_EQ(entries->size(), 3u);
  const auto file = kind_of(*entries, "nvcuda.dll");
  const auto folder = kind_of(*entries, "lib");
  // Where a file system gives no type the caller asks std::filesystem; it never says the wrong one.
  EXPECT_TRUE(file == platform::EntryKind::file || file == platform::EntryKind::unknown);
  EXPECT_TRUE(folder == platform::EntryKind::folder || folder == platform::EntryKind::unknown);
  kind_of(*entries, unicode);
  EXPECT_EQ(platform::sorted_names(dir.path()), (std::vector<std::string>{unicode, "lib", "nvcuda.dll"}));
}

TEST(FolderListing, ALinkIsALinkNotWhatItNames) {
  test::TempDir dir;
  fs::create_directory(dir.path() / "real");
  std::error_code ec;
  fs::create_directory_symlink(dir.path() / "real", dir.path() / "link", ec);
  if (ec) GTEST_SKIP() << "cannot make a symbolic link here: " << ec.message();
  auto entries = platform::list_folder(dir.path());
  ASSERT_TRUE(entries) << entries.error().message;
  const auto link = kind_of(*entries, "link");
  EXPECT_TRUE(link == platform::EntryKind::link || link == platform::EntryKind::unknown);
}

// A launch lists the program's folder once for several checks; what zcuda changes it forgets.
TEST(FolderListing, ListingsAreKeptUntilForgotten) {
  test::TempDir dir;
  std::ofstream(dir.path() / "app") << "x";
  platform::FolderListings listings;
  const auto& first = listings.list(dir.path());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->size(), 1u);
  std::ofstream(dir.path() / "libcuda.so.1") << "y";
  const auto& kept = listings.list(dir.path());
  EXPECT_EQ(&kept, &first);
  EXPECT_EQ(kept->size(), 1u);
  listings.forget(dir.path());
  const auto& fresh = listings.list(dir.path());
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->size(), 2u);
  EXPECT_EQ(platform::folder_names(dir.path()).size(), 2u);
  EXPECT_FALSE(listings.list(dir.path() / "absent"));
}

TEST(FolderListing, AMissingFolderIsAnErrorAndNoNames) {
  test::TempDir dir;
  auto entries = platform::list_folder(dir.path() / "absent");
  ASSERT_FALSE(entries);
  EXPECT_NE(entries.error().message.find("absent"), std::string::npos) << entries.error().message;
  EXPECT_TRUE(platform::sorted_names(dir.path() / "absent").empty());
}

}  // namespace
}  // namespace zcuda
