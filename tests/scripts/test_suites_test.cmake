# cmake/test_suites.cmake's reading of `--gtest_list_tests` output (cmake -P; SOURCE_DIR set): the
# suites of plain, fixture, parameterised and typed tests, from Linux's and Wine's line endings,
# and nothing from gtest_main's first line or the tests' own lines.
include("${SOURCE_DIR}/cmake/test_suites.cmake")

set(listing [==[Running main() from /usr/src/googletest/googletest/src/gtest_main.cc
Reference.
  GemmIsColumnMajorWithAlphaAndBeta
  GemmHandlesNonSquareShapes
StageFixture.
  StagingBesideARunningProgram
Cases/HostileArchive.
  IsRefusedAsAWholeAndWritesNothing/dotdot_zip  # GetParam() = (0, 4-byte object <00-00 00-00>)
  IsRefusedAsAWholeAndWritesNothing/dotdot_tar_gz  # GetParam() = (0, 4-byte object <01-00 00-00>)
Typed/0.  # TypeParam = int
  Works
]==])
set(expected "Reference;StageFixture;Cases/HostileArchive;Typed/0")

zcuda_test_suites_of("${listing}" suites)
if(NOT suites STREQUAL expected)
  message(FATAL_ERROR "suites from a Linux listing: [${suites}], expected [${expected}]")
endif()

string(REPLACE "\n" "\r\n" windows_listing "${listing}")
zcuda_test_suites_of("${windows_listing}" suites)
if(NOT suites STREQUAL expected)
  message(FATAL_ERROR "suites from a Wine listing: [${suites}], expected [${expected}]")
endif()

zcuda_test_suites_of("Running main() from gtest_main.cc\n" suites)
if(suites)
  message(FATAL_ERROR "a listing without tests gave suites: [${suites}]")
endif()
message(STATUS "test_suites: all checks passed")
