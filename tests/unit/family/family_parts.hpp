#pragma once
// The family suite's MinGW-built stand-ins (CMakeLists.txt builds them) and the runtime folders
// the tests assemble from them, shared by family_test.cpp and launch_family_test.cpp.
#include <filesystem>
#include <fstream>
#include <string_view>

#include <gtest/gtest.h>

#include <zcuda/family/family.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::family {

inline std::filesystem::path part(const char* name) { return std::filesystem::path(ZCUDA_TEST_FAMILY_PARTS) / name; }

#define REQUIRE_PARTS() \
  if (!std::filesystem::exists(part("upstream_nvcuda.dll"))) GTEST_SKIP() << "MinGW-w64 was not found at configure time"

inline void put(const char* from, const std::filesystem::path& to) {
  std::filesystem::create_directories(to.parent_path());
  std::filesystem::copy_file(part(from), to, std::filesystem::copy_options::overwrite_existing);
}

// An upstream release folder as xtask packs it (v7 previews: with the 32 folder).
inline void make_upstream(const std::filesystem::path& dir, bool with_32bit) {
  put("upstream_nvcuda.dll", dir / "nvcuda.dll");
  for (const char* name : {"nvml.dll", "cublas64_11.dll", "cublas64_12.dll", "cublasLt64_12.dll", "cusparse64_12.dll", "cufft64_12.dll",
                           "cudnn64_9.dll", "nvcudart_hybrid64.dll", "zluda_redirect.dll"}) {
    put("upstream_library.dll", dir / name);
  }
  for (const char* name : {"zluda.exe", "zluda_precompile.exe", "ptxas.exe"}) put("program.exe", dir / name);
  if (with_32bit) {
    put("upstream_nvcuda32.dll", dir / "32" / "nvcuda.dll");
    put("program32.exe", dir / "32" / "zluda.exe");
    put("program.exe", dir / "zluda64_server.exe");
  }
}

// lshqqytiger's release zip (ZLUDA-windows-rocm6-amd64.zip): unversioned CUDA names.
inline void make_lshqqytiger(const std::filesystem::path& dir, bool nightly) {
  put("lshqqytiger_nvcuda.dll", dir / "nvcuda.dll");
  put("lshqqytiger_cublas.dll", dir / "cublas.dll");
  put("lshqqytiger_cusparse.dll", dir / "cusparse.dll");
  put("lshqqytiger_cufft.dll", dir / "cufft.dll");
  put("lshqqytiger_cufft.dll", dir / "cufftw.dll");
  put("lshqqytiger_nvrtc.dll", dir / "nvrtc.dll");
  put("upstream_library.dll", dir / "nvml.dll");
  put("upstream_library.dll", dir / "zluda_redirect.dll");
  put("program.exe", dir / "zluda.exe");
  if (nightly) put("lshqqytiger_cublas.dll", dir / "cublasLt.dll");
}

// A file of a known release (manifests/runtime-families.json): its real size and digest.
inline const KnownFile& known_file(std::string_view name, std::string_view release) {
  for (const auto& known : known_files()) {
    if (known.name == name && known.release == release) return known;
  }
  ADD_FAILURE() << "runtime-families.json lists no " << name << " of " << release;
  static const KnownFile none;
  return none;
}

// `size` zero bytes (sparse where the file system allows): bytes that hash to no release.
inline void write_zeros(const std::filesystem::path& file, std::uintmax_t size) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc).close();
  std::filesystem::resize_file(file, size);
}

}  // namespace zcuda::family
