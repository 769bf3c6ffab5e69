# Compiler settings shared by every zcuda target, applied through an interface library.
add_library(zcuda_settings INTERFACE)
target_compile_features(zcuda_settings INTERFACE cxx_std_23)

if(MSVC)
  # /bigobj: a unity batch of 48 files (below) can pass the 65,279 sections an object file holds
  # without it.
  target_compile_options(zcuda_settings INTERFACE /W4 /utf-8 /permissive- /bigobj)
  if(ZCUDA_WARNINGS_AS_ERRORS)
    target_compile_options(zcuda_settings INTERFACE /WX)
  endif()
else()
  target_compile_options(zcuda_settings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference
    -Wimplicit-fallthrough)
  if(ZCUDA_WARNINGS_AS_ERRORS)
    target_compile_options(zcuda_settings INTERFACE -Werror)
  endif()
  # GCC 12 at -O2/-O3 reports -Wrestrict inside libstdc++'s std::string operator+ where nothing
  # overlaps (GCC bug 105329, fixed in GCC 13); only optimised builds see it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(zcuda_settings INTERFACE -Wno-restrict)
  endif()
  # GCC's -Wfree-nonheap-object misreads std::vector's deallocation after inlining at -O2/-O3
  # (GCC meta-bug 99098, still open in GCC 15): the MinGW build's unit tests failed on a test's
  # std::vector<double> in one folder and compiled in another, the same sources and flags. The
  # asan build (-O0, never warned) catches a real bad delete when it runs.
  target_compile_options(zcuda_settings INTERFACE -Wno-free-nonheap-object)
endif()

if(ZCUDA_SANITIZE)
  target_compile_options(zcuda_settings INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(zcuda_settings INTERFACE -fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # No ASan redzones around globals. GCC puts them around UBSan's own per-check data too, which
    # made three quarters of the 81 MB of .data, registered at every start and scanned by
    # LeakSanitizer at every exit: zcuda --version took 240 ms of CPU with them, 108 ms without.
    # Out-of-bounds reads of globals stay caught: UBSan's bounds check covers fixed-size arrays,
    # and libstdc++'s assertions (below) std::array, string_view, span, vector and string, whose
    # overruns within their capacity ASan never saw.
    target_compile_options(zcuda_settings INTERFACE --param=asan-globals=0)
  endif()
  target_compile_definitions(zcuda_settings INTERFACE _GLIBCXX_ASSERTIONS)
  # Executables at a fixed address (-no-pie): UBSan's data for each check holds about 20 MB of
  # pointers, which a position-independent executable relocates page by page at every start
  # (3 million relocations: 0.38 s of CPU per start of zcuda or a test program here, 0.2 s without).
  target_link_options(zcuda_settings INTERFACE $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()

# lld links the builds that have tests (dev, asan) about four times as fast as GNU ld: under the
# sanitizers a test program took 5.3 s to link with ld.bfd and 1.2 s with lld here (issue 38).
# Builds without tests, releases among them, keep the system linker.
option(ZCUDA_LLD "Link the builds with tests through lld when it is installed" ON)
if(ZCUDA_LLD AND ZCUDA_BUILD_TESTS AND NOT CMAKE_CROSSCOMPILING AND NOT WIN32
   AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  find_program(ZCUDA_LLD_PROGRAM ld.lld)
  if(ZCUDA_LLD_PROGRAM)
    target_link_options(zcuda_settings INTERFACE -fuse-ld=lld)
  endif()
endif()

if(MINGW)
  # One self-contained .exe: the C++ runtime and winpthreads linked in, no DLLs of GCC's to ship.
  target_link_options(zcuda_settings INTERFACE -static)
endif()

if(WIN32)
  # Wide-character Win32 APIs everywhere; no min/max macros from windows.h.
  target_compile_definitions(zcuda_settings INTERFACE UNICODE _UNICODE NOMINMAX WIN32_LEAN_AND_MEAN _WIN32_WINNT=0x0A00)
endif()

# Where the executables go in an install and the release archive: beside the docs on Windows,
# where people unzip and run zcuda.exe; bin/ elsewhere.
if(WIN32)
  set(ZCUDA_INSTALL_BINDIR .)
else()
  set(ZCUDA_INSTALL_BINDIR bin)
endif()

# Unity batches (issue 38): a target's sources compiled 48 to a translation unit, so the
# headers every file includes (GoogleTest, nlohmann/json, fmt, the standard library) are parsed,
# and their common templates instantiated, once per batch instead of once per file. On a 2-core
# machine with nothing cached that is most of what building the tests costs (docs/performance.md):
# the whole asan build took 799 s of CPU in batches of 12, 540 s in batches of 48 and 516 s in
# batches of 96, whose few large units left a core idle (343 s of wall time against 298 s at 48).
# On where the tests are built and in releases, so what is tested is built as what ships; the dev
# preset turns it off, so an edit recompiles one file and every file still compiles on its own.
option(ZCUDA_UNITY_BUILD "Compile zcuda's own targets in unity batches" ON)
function(zcuda_unity_build target)
  if(ZCUDA_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 48)
  endif()
endfunction()
