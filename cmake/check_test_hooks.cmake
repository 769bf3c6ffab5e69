# cmake -DFILE=<binary> -DEXPECT=absent|present -P check_test_hooks.cmake
# Test hooks (include/zcuda/platform/test_hooks.hpp) are steered by ZCUDA_TEST_* environment
# variables. A build without ZCUDA_TEST_HOOKS must not hold a single one of those names: then
# nothing in it can read them. "present" checks a test build, so the scan is known to find them.
if(NOT FILE OR NOT EXPECT)
  message(FATAL_ERROR "usage: cmake -DFILE=<binary> -DEXPECT=absent|present -P check_test_hooks.cmake")
endif()
file(STRINGS "${FILE}" names REGEX "ZCUDA_TEST_[A-Z_]+")
list(LENGTH names count)
if(EXPECT STREQUAL "absent" AND count GREATER 0)
  list(JOIN names ", " shown)
  message(FATAL_ERROR "${FILE} holds test hook names (${shown}); it must be built with ZCUDA_TEST_HOOKS=OFF")
elseif(EXPECT STREQUAL "present" AND count EQUAL 0)
  message(FATAL_ERROR "${FILE} holds no test hook names, yet it was built with ZCUDA_TEST_HOOKS=ON")
endif()
message(STATUS "${FILE}: test hooks ${EXPECT}")
