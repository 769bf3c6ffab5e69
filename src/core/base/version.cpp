#include <zcuda/base/version.hpp>

#ifndef ZCUDA_VERSION
#error "ZCUDA_VERSION must be defined by the build"
#endif
// The target is the build's to say (src/core/CMakeLists.txt), not a platform test here.
#ifndef ZCUDA_TARGET
#error "ZCUDA_TARGET must be defined by the build"
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
  return ZCUDA_COMPILER ", " ZCUDA_BUILD_TYPE ", " ZCUDA_TARGET;
}

}  // namespace zcuda
