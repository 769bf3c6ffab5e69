#pragma once
// What the cuBLAS and cuBLASLt checks share: constants from cublas_api.h / library_types.h, the
// FP32 bound, inputs, and a cuBLAS handle on the driver's primary context.
#include <cstdint>
#include <vector>

#include "cuda_driver.hpp"

namespace zcuda::probe {

using BlasHandleT = void*;

inline constexpr int kOpN = 0, kOpT = 1;
inline constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;
inline constexpr int kCompute32F = 68;
inline constexpr int kGemmDefault = -1;
inline constexpr int kTf32TensorOpMath = 3;  // CUBLAS_TF32_TENSOR_OP_MATH

// Relative L2 error bound for FP32 products (NVIDIA's simpleCUBLAS uses the same 1e-6). With
// inputs in [0, 1) and k ≤ 320, even a naive left-to-right FP32 sum stays several times below it
// (about 3e-7; tests/unit/verify/reference_test.cpp holds it), while inputs rounded to FP16 or
// TF32's 10-bit mantissa land above 1e-5, and one wrong element far above that.
inline constexpr double kFp32Tolerance = 1e-6;

// `count` floats uniform in [0, 1), from a fixed seed.
std::vector<float> random_unit(std::size_t count, std::uint64_t seed);
// `count` floats uniform in [-1, 1), from a fixed seed.
std::vector<float> random_symmetric(std::size_t count, std::uint64_t seed);

template <class T>
std::size_t bytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

struct BlasHandle {
  using Destroy = int (*)(BlasHandleT);
  BlasHandleT handle = nullptr;
  Destroy destroy = nullptr;
  BlasHandle() = default;
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  ~BlasHandle() {
    if (handle && destroy) destroy(handle);
  }
};

// Loads cuBLAS, then the driver (a context must be current before cublasCreate), and creates a
// handle; cublasGetVersion_v2's answer goes into the metrics (never a gate: ZLUDA lacks it).
Library open_cublas(Report& report, Driver& driver, BlasHandle& blas);

}  // namespace zcuda::probe
