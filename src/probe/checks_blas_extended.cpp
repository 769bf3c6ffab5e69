// cublas.gemm_ex_bf16, cublas.sgemm_tf32, cublas.gemm_strided_batched: the cuBLAS paths PyTorch
// takes beyond a plain SGEMM (bfloat16 models, allow_tf32, batched attention products).
#include <cstdint>
#include <cstdio>
#include <string>

#include "blas_common.hpp"
#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

using Handle = BlasHandleT;

// With inputs in [0, 1) every product is positive, so an element's relative error is at most
// the largest product's: cutting both inputs to TF32's 10 mantissa bits (truncation, the worst
// rounding) gives (1 + 2^-10)^2 − 1 ≈ 1.95e-3, plus k·2^-24 ≈ 1.9e-5 for FP32 accumulation.
// A correct TF32 product measures about 6.5e-4 here (truncated inputs, naive sum; the unit
// tests hold both figures); a wrong element or layout is of order 1.
constexpr double kTf32Tolerance = 2e-3;

}  // namespace

void check_cublas_gemm_ex_bf16(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto gemm_ex = require_symbol<int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, const void*,
                                        void*, int, int, int, int)>(lib, "cublasGemmEx");
  constexpr int m = 256, n = 128, k = 512;
  // Multiples of 1/64 in [-1, 1] need 7 significant bits: exact in bfloat16's 8. Products and
  // every partial sum are exact in FP32 (as for gemm_ex_f16), so a correct BF16-input,
  // FP32-accumulate product is exact; an accumulator narrower than FP32, or inputs read as FP16,
  // is not.
  ref::Lcg rng(22);
  std::vector<float> a(std::size_t{m} * k), b(std::size_t{k} * n);
  for (auto& x : a) x = rng.sixty_fourths();
  for (auto& x : b) x = rng.sixty_fourths();
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = ref::float_to_bf16(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = ref::float_to_bf16(b[i]);
  const float alpha = 1.0f, beta = 0.0f;
  DeviceBuffer da(d, bytes(a16)), db(d, bytes(b16)), dc(d, std::size_t{m} * n * 4);
  da.upload(std::span<const std::uint16_t>(a16));
  db.upload(std::span<const std::uint16_t>(b16));
  const auto start = std::chrono::steady_clock::now();
  check_status(Api::cublas, "cublasGemmEx",
               gemm_ex(blas.handle, kOpN, kOpN, m, n, k, &alpha, da.as_pointer(), kR16BF, m, db.as_pointer(), kR16BF, k, &beta, dc.as_pointer(),
                       kR32F, m, kCompute32F, kGemmDefault));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto got = dc.download<float>(std::size_t{m} * n);
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, {}, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "256x128x512").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "BF16 inputs, FP32 output and compute, 256×128×512", error, kFp32Tolerance);
}

void check_cublas_sgemm_tf32(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto set_math_mode = require_symbol<int (*)(Handle, int)>(lib, "cublasSetMathMode");
  auto sgemm =
      require_symbol<int (*)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int)>(
          lib, "cublasSgemm_v2");
  check_status(Api::cublas, "cublasSetMathMode (CUBLAS_TF32_TENSOR_OP_MATH)", set_math_mode(blas.handle, kTf32TensorOpMath));
  constexpr int m = 256, n = 192, k = 320;
  const auto a = random_unit(std::size_t{m} * k, 41), b = random_unit(std::size_t{k} * n, 42), c = random_unit(std::size_t{m} * n, 43);
  const float alpha = 1.0f, beta = 0.5f;
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), dc(d, bytes(c));
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  dc.upload(std::span<const float>(c));
  check_status(Api::cublas, "cublasSgemm_v2",
               sgemm(blas.handle, kOpN, kOpN, m, n, k, &alpha, static_cast<const float*>(da.as_pointer()), m,
                     static_cast<const float*>(db.as_pointer()), k, &beta, static_cast<float*>(dc.as_pointer()), m));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = dc.download<float>(c.size());
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, c, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  // Informational: whether the library used reduced precision at all (FP32 alone stays near 1e-7).
  report.metrics.str("shape", "256x192x320").str("precision_seen", error > 1e-5 ? "TF32 rounding visible" : "FP32 (math mode had no visible effect)");
  pass_if_within(report, "CUBLAS_TF32_TENSOR_OP_MATH, C = A·B + 0.5·C, 256×192×320", error, kTf32Tolerance);
}

void check_cublas_gemm_strided_batched(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto batched = require_symbol<int (*)(Handle, int, int, int, int, int, const float*, const float*, int, long long, const float*, int, long long,
                                        const float*, float*, int, long long, int)>(lib, "cublasSgemmStridedBatched");
  // Attention scores for 12 heads: S_h = Q_hᵀ·K_h / 8 with head dimension 64 and 128 tokens, Q
  // and K stored d×L per head (column j is token j), as cuBLAS sees a row-major L×d tensor.
  constexpr int heads = 12, dim = 64, tokens = 128;
  constexpr long long qk_stride = static_cast<long long>(dim) * tokens, s_stride = static_cast<long long>(tokens) * tokens;
  const auto q = random_symmetric(static_cast<std::size_t>(qk_stride) * heads, 91);
  const auto kk = random_symmetric(static_cast<std::size_t>(qk_stride) * heads, 92);
  const float alpha = 0.125f, beta = 0.0f;
  DeviceBuffer dq(d, bytes(q)), dk(d, bytes(kk)), ds(d, static_cast<std::size_t>(s_stride) * heads * 4);
  dq.upload(std::span<const float>(q));
  dk.upload(std::span<const float>(kk));
  check_status(
      Api::cublas, "cublasSgemmStridedBatched",
      batched(blas.handle, kOpT, kOpN, tokens, tokens, dim, &alpha, static_cast<const float*>(dq.as_pointer()), dim, qk_stride,
              static_cast<const float*>(dk.as_pointer()), dim, qk_stride, &beta, static_cast<float*>(ds.as_pointer()), tokens, s_stride, heads));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = ds.download<float>(static_cast<std::size_t>(s_stride) * heads);
  std::vector<double> expected;
  expected.reserve(got.size());
  for (int h = 0; h < heads; ++h) {
    const auto offset = static_cast<std::size_t>(qk_stride) * static_cast<std::size_t>(h);
    const std::span<const float> qh(q.data() + offset, static_cast<std::size_t>(qk_stride));
    const std::span<const float> kh(kk.data() + offset, static_cast<std::size_t>(qk_stride));
    const auto s = ref::gemm_op(true, false, tokens, tokens, dim, alpha, qh, dim, kh, dim, 0.0, {}, tokens);
    expected.insert(expected.end(), s.begin(), s.end());
  }
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "12 x (128x128x64), op(A) = transposed")
      .num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "12 heads of Qᵀ·K/8, 128×128×64, strided batch", error, kFp32Tolerance);
}

}  // namespace zcuda::probe
