# Cross build for 64-bit Windows with Debian's MinGW-w64 (GCC 12, posix threads: std::thread and
# std::mutex need them). Third-party libraries come from the static prefix that
# scripts/windows-deps.sh builds; ZCUDA_MINGW_PREFIX (cache variable or environment) names it.
# Tests run under Wine through the cross-compiling emulator.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ZCUDA_MINGW_TRIPLE x86_64-w64-mingw32)

find_program(CMAKE_C_COMPILER NAMES ${ZCUDA_MINGW_TRIPLE}-gcc-posix REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${ZCUDA_MINGW_TRIPLE}-g++-posix REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${ZCUDA_MINGW_TRIPLE}-windres REQUIRED)

if(NOT ZCUDA_MINGW_PREFIX AND DEFINED ENV{ZCUDA_MINGW_PREFIX})
  set(ZCUDA_MINGW_PREFIX "$ENV{ZCUDA_MINGW_PREFIX}")
endif()
# try_compile projects re-read this file: hand them the prefix too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ZCUDA_MINGW_PREFIX)

# Libraries and headers only from the MinGW sysroot (zlib) and our prefix, never the host's.
set(CMAKE_FIND_ROOT_PATH "/usr/${ZCUDA_MINGW_TRIPLE}" ${ZCUDA_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(ZCUDA_WINE NAMES wine64 wine PATHS /usr/lib/wine)
if(ZCUDA_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${ZCUDA_WINE}")
endif()
