// The git commits a binary names (how zcuda tells whether ZLUDA's 32-bit nvcuda.dll and its
// zluda64_server.exe come from one build), found across read boundaries.
#include <gtest/gtest.h>

#include <zcuda/binfmt/binfmt.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::binfmt {
namespace {

TEST(CommitIds, FortyHexDigitRunsOnlyInFileOrderWithoutRepeats) {
  test::TempDir dir;
  const std::string a = "8a7931be87d758835776f54ea2e33d30621c74ce";
  const std::string b = "58d90b0b9f1e2d3c4b5a69788796a5b4c3d2e1f0";
  // A commit far into the file straddles the 64 KiB read chunks; 39 and 41 digits, upper case,
  // and a commit glued to more hex digits are not commits.
  std::string bytes(65536 - 20, 'x');
  bytes += a + "G" + std::string(39, 'a') + "z" + std::string(41, 'b') + "z" + "8A7931BE87D758835776F54EA2E33D30621C74CE" + "." + b +
           std::string(1, '\0') + a + "," + a + "f";
  test::write_file(dir / "server.exe", bytes);
  auto ids = embedded_commit_ids(dir / "server.exe");
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(*ids, (std::vector<std::string>{a, b}));
  EXPECT_EQ(*file_contains(dir / "server.exe", b), true);
  EXPECT_EQ(*file_contains(dir / "server.exe", "not in it"), false);
  // A search that straddles two chunks.
  EXPECT_EQ(*file_contains(dir / "server.exe", "xxxx" + a.substr(0, 30)), true);
  EXPECT_FALSE(embedded_commit_ids(dir / "missing.exe"));
}

TEST(CommitIds, AFileNamingNoCommitGivesNone) {
  test::TempDir dir;
  test::write_file(dir / "dll", "no commit here, only deadbeef");
  auto ids = embedded_commit_ids(dir / "dll");
  ASSERT_TRUE(ids);
  EXPECT_TRUE(ids->empty());
}

// Known commits are found wherever they are: glued to other hex digits, straddling a read
// boundary, once each in file order; a commit not asked for and a near miss are not.
TEST(CommitIds, KnownCommitsAreFoundInsideLongerHexRuns) {
  test::TempDir dir;
  const std::string v6 = "3fe12063f4b864f39376718bb212c6b80a55cab3";
  const std::string p9 = "8a7931be87d758835776f54ea2e33d30621c74ce";
  const std::string other = "58d90b0b9f1e2d3c4b5a69788796a5b4c3d2e1f0";
  std::string bytes(65536 - 25, 'x');
  bytes += "builtin" + std::string("cafe") + p9 + "0123" + "." + other + "." + v6.substr(0, 39) + "g" + v6 + "gfx" + p9;
  test::write_file(dir / "nvcuda.dll", bytes);
  auto ids = known_commit_ids(dir / "nvcuda.dll", {v6, p9});
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(*ids, (std::vector<std::string>{p9, v6}));
  auto none = known_commit_ids(dir / "nvcuda.dll", {std::string(40, 'a')});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(known_commit_ids(dir / "missing.dll", {v6}));
}

}  // namespace
}  // namespace zcuda::binfmt
