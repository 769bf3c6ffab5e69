# zcuda_add_test_suites(TARGET): registers a GoogleTest program with CTest as one test per test
# suite (`TARGET:Suite`, run as `--gtest_filter=Suite.*`), not one per test. Starting a test
# program is most of what a small test costs: 0.2 s under the sanitizers and 0.25 s under Wine
# here, for 1,044 tests (docs/performance.md). A suite's tests share one process, as they do
# when a developer runs the program; a failing test fails its suite, and the output names it.
#
# The suites are listed when ctest starts (`--gtest_list_tests`, through the cross build's
# emulator where there is one), and listed again only after the program was rebuilt.
set(ZCUDA_TEST_SUITES_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/test_suites.cmake")

function(zcuda_add_test_suites target)
  get_property(emulator TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"include([==[${ZCUDA_TEST_SUITES_SCRIPT}]==])
zcuda_register_test_suites(
  TARGET [==[${target}]==]
  EXECUTABLE [==[$<TARGET_FILE:${target}>]==]
  EMULATOR [==[${emulator}]==]
  WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==]
  LISTING [==[${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.txt]==]
  TIMEOUT 600)
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
