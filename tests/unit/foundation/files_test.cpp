#include <sys/resource.h>
#include <csignal>

#include <gtest/gtest.h>

#include <zcuda/platform/files.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::platform {
namespace {

namespace fs = std::filesystem;

TEST(Files, AtomicWriteReplacesAndLeavesNoTemporary) {
  test::TempDir dir;
  fs::path target = dir / "sub" / "state.json";
  ASSERT_TRUE(write_file_atomic(target, "first"));
  ASSERT_TRUE(write_file_atomic(target, "second"));
  EXPECT_EQ(test::read_file(target), "second");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(target.parent_path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Files, ReadFileRefusesOversizedFiles) {
  test::TempDir dir;
  test::write_file(dir / "big", std::string(100, 'x'));
  auto r = read_file(dir / "big", 10);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  auto ok = read_file(dir / "big", 100);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->size(), 100u);
}

TEST(Files, ReadMissingFileIsNotFound) {
  test::TempDir dir;
  auto r = read_file(dir / "nope");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
}

TEST(Files, FullDiskKeepsTheOldContent) {
  test::TempDir dir;
  fs::path target = dir / "kept.txt";
  ASSERT_TRUE(write_file_atomic(target, "old"));
  // A file-size limit makes the write fail as a full disk would (EFBIG), without root.
  rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto r = write_file_atomic(target, std::string(1 << 20, 'n'));
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::io);
  EXPECT_NE(r.error().hint.find("disk is full"), std::string::npos) << r.error().message;
  EXPECT_EQ(test::read_file(target), "old");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1) << "the temporary file must be removed";
}

}  // namespace
}  // namespace zcuda::platform
