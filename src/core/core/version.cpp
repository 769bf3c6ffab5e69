#include <zcuda/core/version.hpp>

#ifndef ZCUDA_VERSION
#error "ZCUDA_VERSION must be defined by the build"
#endif
#ifndef ZCUDA_BUILD_TYPE
#define ZCUDA_BUILD_TYPE "unknown"
#endif

namespace zcuda {

std::string_view version() { return ZCUDA_VERSION; }

std::string_view build_info() {
#if defined(__clang__)
#define ZCUDA_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define ZCUDA_COMPILER "gcc " __VERSION__
#elif defined(_MSC_VER)
#define ZCUDA_COMPILER "msvc"
#else
#define ZCUDA_COMPILER "unknown compiler"
#endif
#if defined(_WIN32)
#define ZCUDA_TARGET "windows-x86_64"
#else
#define ZCUDA_TARGET "linux-x86_64"
#endif
  return ZCUDA_COMPILER ", " ZCUDA_BUILD_TYPE ", " ZCUDA_TARGET;
}

}  // namespace zcuda
