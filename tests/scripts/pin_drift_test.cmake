# The pin-drift lint against tests/fixtures/pin-drift-bad, whose pins have one fault each: each
# fault is named, and the one faultless pin is not.
# Usage: cmake -DSOURCE_DIR=<repo> -P pin_drift_test.cmake
execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${SOURCE_DIR}/tests/fixtures/pin-drift-bad -P "${SOURCE_DIR}/cmake/check_pin_drift.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(text "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "pin-drift passed a manifest with faulty pins:\n${text}")
endif()
foreach(expected "plain-http: http://example.invalid/a.zip is not an https:// URL" "short-digest: sha256 has 62 digits"
                 "no-source: docs/manifest-format.md names no public source" "folder-mirror: https://example.invalid/folder/ is not")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "pin-drift did not say \"${expected}\":\n${text}")
  endif()
endforeach()
string(FIND "${text}" "fine:" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "pin-drift faulted the faultless pin:\n${text}")
endif()
message(STATUS "pin-drift named each faulty pin")
