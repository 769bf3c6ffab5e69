#pragma once
// Tests that steer zcuda through its test hooks (include/zcuda/platform/test_hooks.hpp) skip in
// a build without them.
#include <gtest/gtest.h>

#include <zcuda/platform/test_hooks.hpp>

#define ZCUDA_REQUIRE_TEST_HOOKS()                                                           \
  do {                                                                                       \
    if (!::zcuda::platform::test_hooks::enabled()) GTEST_SKIP() << "needs ZCUDA_TEST_HOOKS"; \
  } while (false)
