
#include <gtest/gtest.h>

#include <zcuda/platform/files.hpp>

#include "support/file_size_limit.hpp"
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
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  test::TempDir dir;
  fs::path target = dir / "kept.txt";
  ASSERT_TRUE(write_file_atomic(target, "old"));
  // A file-size limit makes the write fail as a full disk would (EFBIG), without root.
  bool limited = false;
  auto r = [&] {
    test::FileSizeLimit limit(1024);
    limited = limit.active();
    return write_file_atomic(target, std::string(1 << 20, 'n'));
  }();
  ASSERT_TRUE(limited);
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
