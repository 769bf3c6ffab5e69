#include <cstdlib>

#include <gtest/gtest.h>

#include <zcuda/app/home.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::app {
namespace {

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1); else unsetenv(name_);
  }
 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Home, FlagWinsOverEnvironment) {
  test::TempDir dir;
  ScopedEnv env("ZCUDA_HOME", "/somewhere/else");
  auto home = resolve_home(dir.path() / "h");
  ASSERT_TRUE(home);
  EXPECT_EQ(home->root, dir.path() / "h");
  EXPECT_EQ(home->cache, dir.path() / "h" / "cache");
  EXPECT_EQ(home->logs, dir.path() / "h" / "logs");
  EXPECT_EQ(home->chosen_by, "--home");
}

TEST(Home, EnvironmentKeepsEverythingInOneFolder) {
  ScopedEnv env("ZCUDA_HOME", "/tmp/zcuda-home-test");
  auto home = resolve_home(std::nullopt);
  ASSERT_TRUE(home);
  EXPECT_EQ(home->chosen_by, "ZCUDA_HOME");
  for (const auto& p : {home->root, home->cache, home->state, home->logs}) {
    EXPECT_EQ(p.string().rfind("/tmp/zcuda-home-test", 0), 0u) << p;
  }
}

TEST(Home, DefaultFollowsXdg) {
  ScopedEnv env("ZCUDA_HOME", nullptr);
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
  ScopedEnv env("ZCUDA_HOME", nullptr);
  ScopedEnv data("XDG_DATA_HOME", nullptr);
  ScopedEnv h("HOME", nullptr);
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
}  // namespace zcuda::app
