// cublas.* and cublaslt.*: dense matrix products against a double-precision CPU product.
#include <cstdint>
#include <string>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

using Handle = void*;

// cublas_api.h / library_types.h constants.
constexpr int kOpN = 0;
constexpr int kR32F = 0, kR16F = 2;
constexpr int kCompute32F = 68;
constexpr int kGemmDefault = -1;

// Relative L2 error bound for FP32 products (NVIDIA's simpleCUBLAS uses the same 1e-6). With
// inputs in [0, 1) and k ≤ 320, even a naive left-to-right FP32 sum stays several times below it
// (about 3e-7; tests/unit/verify/reference_test.cpp holds it), while inputs rounded to FP16 or
// TF32's 10-bit mantissa land above 1e-5, and one wrong element far above that.
constexpr double kFp32Tolerance = 1e-6;

std::vector<float> random_unit(std::size_t count, std::uint64_t seed) {
  ref::Lcg rng(seed);
  std::vector<float> v(count);
  for (auto& x : v) x = rng.unit();
  return v;
}

template <class T>
std::size_t bytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

struct BlasHandle {
  using Destroy = int (*)(Handle);
  Handle handle = nullptr;
  Destroy destroy = nullptr;
  ~BlasHandle() {
    if (handle && destroy) destroy(handle);
  }
};

// Loads cuBLAS, then the driver (a context must be current before cublasCreate), and creates a handle.
Library open_cublas(Report& report, Driver& driver, BlasHandle& blas) {
  Library lib = require_library(report, "cublas");
  driver = open_driver(report);
  auto create = require_symbol<int (*)(Handle*)>(lib, "cublasCreate_v2");
  blas.destroy = require_symbol<BlasHandle::Destroy>(lib, "cublasDestroy_v2");
  check_status(Api::cublas, "cublasCreate_v2", create(&blas.handle));
  // Reported, never a gate: ZLUDA does not implement cublasGetVersion_v2.
  if (auto get_version = reinterpret_cast<int (*)(Handle, int*)>(lib.symbol("cublasGetVersion_v2"))) {
    int version = 0;
    const int rc = get_version(blas.handle, &version);
    if (rc == 0) {
      report.metrics.integer("cublas_version", version);
    } else {
      report.metrics.str("cublas_version", "cublasGetVersion_v2 answered " + status_name(Api::cublas, rc));
    }
  }
  return lib;
}

void finish(Report& report, const char* what, double error) {
  char text[200];
  std::snprintf(text, sizeof text, "%s: relative L2 error %.3g (tolerance %.3g)", what, error,
                kFp32Tolerance);
  report.status = Status::pass;
  report.detail = text;
}

}  // namespace

void check_cublas_sgemm(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto sgemm = require_symbol<int (*)(Handle, int, int, int, int, int, const float*, const float*, int, const float*,
                                      int, const float*, float*, int)>(lib, "cublasSgemm_v2");
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
  require_within(report, "rel_l2_error", error, kFp32Tolerance);
  finish(report, "C = A·B + 0.5·C, 256×192×320 FP32", error);
}

void check_cublas_gemm_ex_f16(Report& report) {
  Driver d;
  BlasHandle blas;
  Library lib = open_cublas(report, d, blas);
  auto gemm_ex = require_symbol<int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*,
                                        int, int, const void*, void*, int, int, int, int)>(lib, "cublasGemmEx");
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
               gemm_ex(blas.handle, kOpN, kOpN, m, n, k, &alpha, da.as_pointer(), kR16F, m, db.as_pointer(), kR16F, k,
                       &beta, dc.as_pointer(), kR32F, m, kCompute32F, kGemmDefault));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto got = dc.download<float>(std::size_t{m} * n);
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, {}, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "256x128x512").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  require_within(report, "rel_l2_error", error, kFp32Tolerance);
  finish(report, "FP16 inputs, FP32 output and compute, 256×128×512", error);
}

void check_cublaslt_matmul(Report& report) {
  Library lib = require_library(report, "cublaslt");
  Driver d = open_driver(report);
  using Create = int (*)(Handle*);
  using Destroy = int (*)(Handle);
  auto lt_create = require_symbol<Create>(lib, "cublasLtCreate");
  auto lt_destroy = require_symbol<Destroy>(lib, "cublasLtDestroy");
  auto desc_create = require_symbol<int (*)(Handle*, int, int)>(lib, "cublasLtMatmulDescCreate");
  auto desc_destroy = require_symbol<Destroy>(lib, "cublasLtMatmulDescDestroy");
  auto desc_set = require_symbol<int (*)(Handle, int, const void*, std::size_t)>(lib, "cublasLtMatmulDescSetAttribute");
  auto layout_create = require_symbol<int (*)(Handle*, int, std::uint64_t, std::uint64_t, std::int64_t)>(lib, "cublasLtMatrixLayoutCreate");
  auto layout_destroy = require_symbol<Destroy>(lib, "cublasLtMatrixLayoutDestroy");
  auto pref_create = require_symbol<Create>(lib, "cublasLtMatmulPreferenceCreate");
  auto pref_destroy = require_symbol<Destroy>(lib, "cublasLtMatmulPreferenceDestroy");
  auto pref_set = require_symbol<int (*)(Handle, int, const void*, std::size_t)>(lib, "cublasLtMatmulPreferenceSetAttribute");
  // cublasLtMatmulHeuristicResult_t: a 64-byte algo, size_t workspaceSize, status, wavesCount, int[4].
  struct HeuristicResult {
    std::uint64_t algo[8];
    std::size_t workspace_size;
    int state;
    float waves_count;
    int reserved[4];
  };
  static_assert(sizeof(HeuristicResult) == 96);
  auto heuristic = require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, Handle, Handle, int, HeuristicResult*, int*)>(
      lib, "cublasLtMatmulAlgoGetHeuristic");
  auto matmul = require_symbol<int (*)(Handle, Handle, const void*, const void*, Handle, const void*, Handle, const void*,
                                       const void*, Handle, void*, Handle, const void*, void*, std::size_t, CUstream)>(
      lib, "cublasLtMatmul");
  if (auto get_version = reinterpret_cast<std::size_t (*)()>(lib.symbol("cublasLtGetVersion"))) {
    report.metrics.integer("cublaslt_version", static_cast<long long>(get_version()));
  }

  // Handles are destroyed in reverse order on every exit path.
  struct Owned {
    Handle h = nullptr;
    Destroy destroy = nullptr;
    ~Owned() {
      if (h && destroy) destroy(h);
    }
  };
  Owned lt{nullptr, lt_destroy}, desc{nullptr, desc_destroy}, la{nullptr, layout_destroy}, lb{nullptr, layout_destroy},
      lc{nullptr, layout_destroy}, pref{nullptr, pref_destroy};
  check_status(Api::cublas, "cublasLtCreate", lt_create(&lt.h));
  check_status(Api::cublas, "cublasLtMatmulDescCreate", desc_create(&desc.h, kCompute32F, kR32F));
  const std::int32_t op = kOpN;
  check_status(Api::cublas, "cublasLtMatmulDescSetAttribute", desc_set(desc.h, 3 /*TRANSA*/, &op, sizeof op));
  check_status(Api::cublas, "cublasLtMatmulDescSetAttribute", desc_set(desc.h, 4 /*TRANSB*/, &op, sizeof op));
  constexpr int m = 192, n = 160, k = 224;
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", layout_create(&la.h, kR32F, m, k, m));
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", layout_create(&lb.h, kR32F, k, n, k));
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", layout_create(&lc.h, kR32F, m, n, m));
  constexpr std::uint64_t kWorkspace = 4u << 20;
  check_status(Api::cublas, "cublasLtMatmulPreferenceCreate", pref_create(&pref.h));
  check_status(Api::cublas, "cublasLtMatmulPreferenceSetAttribute", pref_set(pref.h, 1 /*MAX_WORKSPACE_BYTES*/, &kWorkspace, sizeof kWorkspace));
  HeuristicResult result{};
  int found = 0;
  check_status(Api::cublas, "cublasLtMatmulAlgoGetHeuristic", heuristic(lt.h, desc.h, la.h, lb.h, lc.h, lc.h, pref.h, 1, &result, &found));
  if (found < 1) throw Stop{Status::error, "cublasLtMatmulAlgoGetHeuristic found no algorithm for a plain FP32 product", std::nullopt};

  const auto a = random_unit(std::size_t{m} * k, 31), b = random_unit(std::size_t{k} * n, 32);
  const float alpha = 1.0f, beta = 0.0f;
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), dc(d, std::size_t{m} * n * 4), workspace(d, kWorkspace);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  const auto start = std::chrono::steady_clock::now();
  check_status(Api::cublas, "cublasLtMatmul",
               matmul(lt.h, desc.h, &alpha, da.as_pointer(), la.h, db.as_pointer(), lb.h, &beta, dc.as_pointer(), lc.h,
                      dc.as_pointer(), lc.h, result.algo, workspace.as_pointer(), kWorkspace, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto got = dc.download<float>(std::size_t{m} * n);
  const auto expected = ref::gemm(m, n, k, alpha, a, m, b, k, beta, {}, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "192x160x224").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  require_within(report, "rel_l2_error", error, kFp32Tolerance);
  finish(report, "cublasLtMatmul FP32 192×160×224 with a heuristic algorithm", error);
}

}  // namespace zcuda::probe
