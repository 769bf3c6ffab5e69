# Compiler settings shared by every zcuda target, applied through an interface library.
add_library(zcuda_settings INTERFACE)
target_compile_features(zcuda_settings INTERFACE cxx_std_23)

if(MSVC)
  target_compile_options(zcuda_settings INTERFACE /W4 /utf-8 /permissive-)
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
endif()

if(ZCUDA_SANITIZE)
  target_compile_options(zcuda_settings INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(zcuda_settings INTERFACE -fsanitize=address,undefined)
  # Executables at a fixed address (-no-pie): the sanitizers' data for each check holds about 80 MB
  # of pointers, which a position-independent executable relocates page by page at every start
  # (3 million relocations: 0.38 s of CPU per start of zcuda or a test program here, 0.2 s without).
  target_link_options(zcuda_settings INTERFACE $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
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

# Unity batches (issue 38): a target's sources compiled 12 to a translation unit, so the
# headers every file includes (GoogleTest, nlohmann/json, fmt, the standard library) are parsed,
# and their common templates instantiated, once per batch instead of once per file. On a 2-core
# machine with nothing cached that is most of what building the tests costs (docs/performance.md).
# On where the tests are built and in releases, so what is tested is built as what ships; the dev
# preset turns it off, so an edit recompiles one file and every file still compiles on its own.
option(ZCUDA_UNITY_BUILD "Compile zcuda's own targets in unity batches" ON)
function(zcuda_unity_build target)
  if(ZCUDA_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 12)
  endif()
endfunction()
