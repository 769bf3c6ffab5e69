# Read by ctest at its start, through the include files that zcuda_add_test_suites
# (ZcudaTestSuites.cmake) writes: lists a GoogleTest program's suites and adds one test for each.

# The suites in a program's `--gtest_list_tests` output. A suite's line is its name and a dot at
# the line's start (a typed or parameterised suite's is followed by "  # TypeParam = ..."); its
# tests are the indented lines under it; gtest_main's own first line is neither.
function(zcuda_test_suites_of listing out)
  string(REPLACE "\r" "" listing "${listing}")
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(suites "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #]+)\\.( +#.*)?$")
      list(APPEND suites "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${suites}" PARENT_SCOPE)
endfunction()

function(zcuda_register_test_suites)
  # PARSE_ARGV keeps the emulator a list (the script and wine), as ${ARGN} would not.
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;EXECUTABLE;EMULATOR;WORKING_DIRECTORY;LISTING;TIMEOUT" "")
  if(NOT EXISTS "${arg_EXECUTABLE}")
    add_test("${arg_TARGET}:NOT_BUILT" "${arg_EXECUTABLE}")
    return()
  endif()
  # The listing is kept beside the program and made again when the program is newer.
  if(NOT EXISTS "${arg_LISTING}" OR "${arg_EXECUTABLE}" IS_NEWER_THAN "${arg_LISTING}")
    execute_process(COMMAND ${arg_EMULATOR} "${arg_EXECUTABLE}" --gtest_list_tests
                    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}" TIMEOUT 120
                    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      # A test that fails, with the reason, instead of a program whose tests silently vanish.
      add_test("${arg_TARGET}:LIST_TESTS" ${arg_EMULATOR} "${arg_EXECUTABLE}" --gtest_list_tests)
      set_tests_properties("${arg_TARGET}:LIST_TESTS" PROPERTIES WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
      return()
    endif()
    file(WRITE "${arg_LISTING}" "${listing}")
  else()
    file(READ "${arg_LISTING}" listing)
  endif()
  zcuda_test_suites_of("${listing}" suites)
  if(NOT suites)
    # Fails: a program that lists no suites has lost its tests.
    add_test("${arg_TARGET}:NO_TESTS" ${arg_EMULATOR} "${arg_EXECUTABLE}" --gtest_list_tests)
    set_tests_properties("${arg_TARGET}:NO_TESTS" PROPERTIES WILL_FAIL TRUE)
    return()
  endif()
  foreach(suite IN LISTS suites)
    set(name "${arg_TARGET}:${suite}")
    add_test("${name}" ${arg_EMULATOR} "${arg_EXECUTABLE}" "--gtest_filter=${suite}.*")
    set_tests_properties("${name}" PROPERTIES WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}" TIMEOUT ${arg_TIMEOUT})
  endforeach()
endfunction()
