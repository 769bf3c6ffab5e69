#include <gtest/gtest.h>

#include <zcuda/home/home.hpp>
#include <zcuda/base/path_text.hpp>

#include "support/environment.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::home {
namespace {

using test::ScopedEnv;

TEST(Home, FlagWinsOverEnvironment) {
  test::TempDir dir;
  ScopedEnv env("ZCUDA_HOME", path_to_utf8(dir / "somewhere else"));
  auto home = resolve_home(dir.path() / "h");
  ASSERT_TRUE(home);
  EXPECT_EQ(home->root, dir.path() / "h");
  EXPECT_EQ(home->cache, dir.path() / "h" / "cache");
  EXPECT_EQ(home->logs, dir.path() / "h" / "logs");
  EXPECT_EQ(home->chosen_by, ChosenBy::flag);
}

// A user name with non-ASCII letters puts them in every path zcuda uses.
TEST(Home, EnvironmentKeepsEverythingInOneFolder) {
  test::TempDir dir;
  const auto root = dir / "Usérs" / "José Ñúñez" / "zcuda home";
  ScopedEnv env("ZCUDA_HOME", path_to_utf8(root));
  auto home = resolve_home(std::nullopt);
  ASSERT_TRUE(home);
  EXPECT_EQ(home->chosen_by, ChosenBy::environment);
  EXPECT_EQ(home->root, root);
  for (const auto& p : {home->cache, home->state, home->logs}) EXPECT_EQ(p.parent_path(), root) << p;
  ASSERT_TRUE(create_home_folders(*home));
  EXPECT_TRUE(std::filesystem::is_directory(root / "logs"));
}

#ifdef _WIN32
TEST(Home, DefaultIsLocalAppData) {
  ScopedEnv env("ZCUDA_HOME", std::nullopt);
  auto home = resolve_home(std::nullopt);
  ASSERT_TRUE(home);
  ASSERT_TRUE(platform::get_env("LOCALAPPDATA"));
  const auto local = path_from_utf8(*platform::get_env("LOCALAPPDATA"));
  EXPECT_EQ(home->root, local / "zcuda");
  EXPECT_EQ(home->cache, local / "zcuda" / "cache");
  EXPECT_EQ(home->logs, local / "zcuda" / "logs");
  EXPECT_EQ(home->chosen_by, ChosenBy::os_default);
}
#endif

TEST(Home, DefaultFollowsXdg) {
#ifdef _WIN32
  GTEST_SKIP() << "XDG base directories are Linux's; Windows uses LocalAppData (Home.DefaultIsLocalAppData)";
#endif
  ScopedEnv env("ZCUDA_HOME", std::nullopt);
  ScopedEnv data("XDG_DATA_HOME", "/x/data");
  ScopedEnv cache("XDG_CACHE_HOME", "/x/cache");
  ScopedEnv state("XDG_STATE_HOME", "relative/ignored");  // XDG: relative values are ignored
  ScopedEnv h("HOME", "/home/u");
  auto home = resolve_home(std::nullopt);
  ASSERT_TRUE(home);
  EXPECT_EQ(home->root, "/x/data/zcuda");
  EXPECT_EQ(home->cache, "/x/cache/zcuda");
  EXPECT_EQ(home->state, "/home/u/.local/state/zcuda");
  EXPECT_EQ(home->logs, "/home/u/.local/state/zcuda/logs");
}

TEST(Home, NoHomeAndNoXdgIsAnEnvironmentError) {
#ifdef _WIN32
  GTEST_SKIP() << "Windows always reports LocalAppData through SHGetKnownFolderPath";
#endif
  ScopedEnv env("ZCUDA_HOME", std::nullopt);
  ScopedEnv data("XDG_DATA_HOME", std::nullopt);
  ScopedEnv h("HOME", std::nullopt);
  auto home = resolve_home(std::nullopt);
  ASSERT_FALSE(home);
  EXPECT_EQ(home.error().kind, ErrorKind::environment);
  EXPECT_NE(home.error().hint.find("--home"), std::string::npos);
}

TEST(Home, CreateReportsTheFolderThatFailed) {
  test::TempDir dir;
  test::write_file(dir / "file", "x");  // a file where a folder must go
  auto home = resolve_home(dir / "file" / "sub");
  ASSERT_TRUE(home);
  auto created = create_home_folders(*home);
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().kind, ErrorKind::io);
  EXPECT_NE(created.error().message.find("file"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::home
