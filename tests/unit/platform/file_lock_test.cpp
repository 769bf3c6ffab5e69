#include <gtest/gtest.h>

#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/process_id.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::platform {
namespace {

TEST(FileLock, SecondHolderFailsWithoutWaitingAndNamesTheHolder) {
  test::TempDir dir;
  auto first = lock_file(dir / "x.lock", {});
  ASSERT_TRUE(first) << first.error().message;
  LockWait no_wait;
  no_wait.wait = false;
  auto second = lock_file(dir / "x.lock", no_wait);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::locked);
  EXPECT_NE(second.error().message.find("pid " + std::to_string(current_process_id())), std::string::npos) << second.error().message;
  // A waiter that gave up must not erase the holder's pid.
  auto again = lock_file(dir / "x.lock", no_wait);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("pid " + std::to_string(current_process_id())), std::string::npos) << again.error().message;
  first->release();
  auto third = lock_file(dir / "x.lock", no_wait);
  EXPECT_TRUE(third);
}

TEST(FileLock, WaiterIsToldAndCanBeCancelled) {
  test::TempDir dir;
  auto first = lock_file(dir / "x.lock", {});
  ASSERT_TRUE(first);
  std::atomic<bool> cancel{false};
  std::optional<long> told;
  LockWait how;
  how.poll = std::chrono::milliseconds(10);
  how.cancel = &cancel;
  how.on_wait = [&](std::optional<long> holder) {
    told = holder;
    cancel = true;
  };
  auto second = lock_file(dir / "x.lock", how);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::interrupted);
  EXPECT_EQ(told, current_process_id());
}

}  // namespace
}  // namespace zcuda::platform
