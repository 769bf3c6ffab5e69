// cublas.sgemm and cublas.gemm_ex_f16: dense matrix products against a double-precision CPU product.
#include <cstdint>
#include <string>

#include "blas_common.hpp"
#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

using Handle = BlasHandleT;

}  // namespace

void check_cublas_sgemm(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto sgemm =
      require_symbol<int (*)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int)>(
          lib, "cublasSgemm_v2");
  constexpr int m = 256, n = 192, k = 320;
  const auto a = random_unit(std::size_t{m} * k, 11), b = random_unit(std::size_t{k} * n, 12), c = random_unit(std::size_t{m} * n, 13);
  const float alpha = 1.0f, beta = 0.5f;
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), dc(d, bytes(c));
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  dc.upload(std::span<const float>(c));
  const auto start = std::chrono::steady_clock::now();
  check_status(Api::cublas, "cublasSgemm_v2",
               sgemm(blas.handle, kOpN, kOpN, m, n, k, &alpha, static_cast<const float*>(da.as_pointer()), m,
                     static_cast<const float*>(db.as_pointer()), k, &beta, static_cast<float*>(dc.as_pointer()), m));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto got = dc.download<float>(c.size());
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, c, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "256x192x320").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "C = A·B + 0.5·C, 256×192×320 FP32", error, kFp32Tolerance);
}

void check_cublas_gemm_ex_f16(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto gemm_ex = require_symbol<int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, const void*,
                                        void*, int, int, int, int)>(lib, "cublasGemmEx");
  constexpr int m = 256, n = 128, k = 512;
  // Multiples of 1/64 in [-1, 1] are exact in FP16, their products exact in FP32, and every
  // partial sum (|s| ≤ 512 in steps of 2^-12) fits FP32's 24 bits: a correct FP16-input,
  // FP32-accumulate product is exact in any summation order.
  ref::Lcg rng(21);
  std::vector<float> a(std::size_t{m} * k), b(std::size_t{k} * n);
  for (auto& x : a) x = rng.sixty_fourths();
  for (auto& x : b) x = rng.sixty_fourths();
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = ref::float_to_half(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = ref::float_to_half(b[i]);
  const float alpha = 1.0f, beta = 0.0f;
  DeviceBuffer da(d, bytes(a16)), db(d, bytes(b16)), dc(d, std::size_t{m} * n * 4);
  da.upload(std::span<const std::uint16_t>(a16));
  db.upload(std::span<const std::uint16_t>(b16));
  const auto start = std::chrono::steady_clock::now();
  check_status(Api::cublas, "cublasGemmEx",
               gemm_ex(blas.handle, kOpN, kOpN, m, n, k, &alpha, da.as_pointer(), kR16F, m, db.as_pointer(), kR16F, k, &beta, dc.as_pointer(), kR32F,
                       m, kCompute32F, kGemmDefault));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto got = dc.download<float>(std::size_t{m} * n);
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, {}, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "256x128x512").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "FP16 inputs, FP32 output and compute, 256×128×512", error, kFp32Tolerance);
}

}  // namespace zcuda::probe
