// cublaslt.*: cublasLtMatmul, plain and with the bias + activation epilogues PyTorch's Linear
// layers use (addmm with a bias takes cuBLASLt's epilogue path).
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
using Destroy = int (*)(Handle);

// cublasLt.h constants.
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8;
constexpr int kPrefMaxWorkspaceBytes = 1;
constexpr std::uint32_t kEpilogueReluBias = 6, kEpilogueGeluBias = 36;
constexpr std::uint64_t kWorkspace = 4u << 20;

// cublasLtMatmulHeuristicResult_t: a 64-byte algo, size_t workspaceSize, status, wavesCount, int[4].
struct HeuristicResult {
  std::uint64_t algo[8];
  std::size_t workspace_size;
  int state;
  float waves_count;
  int reserved[4];
};
static_assert(sizeof(HeuristicResult) == 96);

// Handles are destroyed in reverse order of declaration on every exit path.
struct LtHandle {
  Handle h = nullptr;
  Destroy destroy = nullptr;
  LtHandle(Destroy d) : destroy(d) {}
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
  ~LtHandle() {
    if (h && destroy) destroy(h);
  }
};

// cuBLASLt's functions, resolved once per check.
struct Lt {
  explicit Lt(const Library& lib)
      : create(require_symbol<int (*)(Handle*)>(lib, "cublasLtCreate")),
        destroy(require_symbol<Destroy>(lib, "cublasLtDestroy")),
        desc_create(require_symbol<int (*)(Handle*, int, int)>(lib, "cublasLtMatmulDescCreate")),
        desc_destroy(require_symbol<Destroy>(lib, "cublasLtMatmulDescDestroy")),
        desc_set(require_symbol<int (*)(Handle, int, const void*, std::size_t)>(lib, "cublasLtMatmulDescSetAttribute")),
        layout_create(require_symbol<int (*)(Handle*, int, std::uint64_t, std::uint64_t, std::int64_t)>(lib, "cublasLtMatrixLayoutCreate")),
        layout_destroy(require_symbol<Destroy>(lib, "cublasLtMatrixLayoutDestroy")),
        pref_create(require_symbol<int (*)(Handle*)>(lib, "cublasLtMatmulPreferenceCreate")),
        pref_destroy(require_symbol<Destroy>(lib, "cublasLtMatmulPreferenceDestroy")),
        pref_set(require_symbol<int (*)(Handle, int, const void*, std::size_t)>(lib, "cublasLtMatmulPreferenceSetAttribute")),
        heuristic(require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, Handle, Handle, int, HeuristicResult*, int*)>(
            lib, "cublasLtMatmulAlgoGetHeuristic")),
        matmul(require_symbol<int (*)(Handle, Handle, const void*, const void*, Handle, const void*, Handle, const void*, const void*, Handle, void*,
                                      Handle, const void*, void*, std::size_t, CUstream)>(lib, "cublasLtMatmul")) {}

  int (*create)(Handle*);
  Destroy destroy;
  int (*desc_create)(Handle*, int, int);
  Destroy desc_destroy;
  int (*desc_set)(Handle, int, const void*, std::size_t);
  int (*layout_create)(Handle*, int, std::uint64_t, std::uint64_t, std::int64_t);
  Destroy layout_destroy;
  int (*pref_create)(Handle*);
  Destroy pref_destroy;
  int (*pref_set)(Handle, int, const void*, std::size_t);
  int (*heuristic)(Handle, Handle, Handle, Handle, Handle, Handle, Handle, int, HeuristicResult*, int*);
  int (*matmul)(Handle, Handle, const void*, const void*, Handle, const void*, Handle, const void*, const void*, Handle, void*, Handle, const void*,
                void*, std::size_t, CUstream);
};

void report_version(Report& report, const Library& lib) {
  if (auto get_version = reinterpret_cast<std::size_t (*)()>(lib.symbol("cublasLtGetVersion"))) {
    report.metrics.integer("cublaslt_version", static_cast<long long>(get_version()));
  }
}

// D = epilogue(alpha·A·B (+ bias)), FP32, A m×k, B k×n, D m×n column-major; the algorithm from
// the library's heuristic for exactly this descriptor (the epilogue changes which kernels apply).
std::vector<float> run_matmul(const Lt& lt, Handle handle, const Driver& d, int m, int n, int k, float alpha, const DeviceBuffer& a,
                              const DeviceBuffer& b, std::uint32_t epilogue, const DeviceBuffer* bias, const char* what) {
  LtHandle desc{lt.desc_destroy}, la{lt.layout_destroy}, lb{lt.layout_destroy}, lc{lt.layout_destroy}, pref{lt.pref_destroy};
  check_status(Api::cublas, "cublasLtMatmulDescCreate", lt.desc_create(&desc.h, kCompute32F, kR32F));
  const std::int32_t op = kOpN;
  check_status(Api::cublas, "cublasLtMatmulDescSetAttribute (TRANSA)", lt.desc_set(desc.h, kDescTransA, &op, sizeof op));
  check_status(Api::cublas, "cublasLtMatmulDescSetAttribute (TRANSB)", lt.desc_set(desc.h, kDescTransB, &op, sizeof op));
  if (bias != nullptr) {
    check_status(Api::cublas, "cublasLtMatmulDescSetAttribute (EPILOGUE)", lt.desc_set(desc.h, kDescEpilogue, &epilogue, sizeof epilogue));
    const void* bias_ptr = bias->as_pointer();
    check_status(Api::cublas, "cublasLtMatmulDescSetAttribute (BIAS_POINTER)", lt.desc_set(desc.h, kDescBiasPointer, &bias_ptr, sizeof bias_ptr));
  }
  const auto um = static_cast<std::uint64_t>(m), un = static_cast<std::uint64_t>(n), uk = static_cast<std::uint64_t>(k);
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", lt.layout_create(&la.h, kR32F, um, uk, m));
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", lt.layout_create(&lb.h, kR32F, uk, un, k));
  check_status(Api::cublas, "cublasLtMatrixLayoutCreate", lt.layout_create(&lc.h, kR32F, um, un, m));
  check_status(Api::cublas, "cublasLtMatmulPreferenceCreate", lt.pref_create(&pref.h));
  check_status(Api::cublas, "cublasLtMatmulPreferenceSetAttribute", lt.pref_set(pref.h, kPrefMaxWorkspaceBytes, &kWorkspace, sizeof kWorkspace));
  HeuristicResult result{};
  int found = 0;
  check_status(Api::cublas, "cublasLtMatmulAlgoGetHeuristic", lt.heuristic(handle, desc.h, la.h, lb.h, lc.h, lc.h, pref.h, 1, &result, &found));
  if (found < 1) throw Stop{Status::error, std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm for ") + what, std::nullopt};
  DeviceBuffer dd(d, std::size_t{um * un} * 4), workspace(d, kWorkspace);
  const float beta = 0.0f;
  check_status(Api::cublas, "cublasLtMatmul",
               lt.matmul(handle, desc.h, &alpha, a.as_pointer(), la.h, b.as_pointer(), lb.h, &beta, dd.as_pointer(), lc.h, dd.as_pointer(), lc.h,
                         result.algo, workspace.as_pointer(), kWorkspace, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  return dd.download<float>(std::size_t{um * un});
}

}  // namespace

void check_cublaslt_matmul(Report& report) {
  Library lib = require_library(report, "cublaslt");
  Driver d = open_driver(report);
  const Lt lt(lib);
  report_version(report, lib);
  LtHandle handle{lt.destroy};
  check_status(Api::cublas, "cublasLtCreate", lt.create(&handle.h));
  constexpr int m = 192, n = 160, k = 224;
  const auto a = random_unit(std::size_t{m} * k, 31), b = random_unit(std::size_t{k} * n, 32);
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b));
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  const auto start = std::chrono::steady_clock::now();
  const auto got = run_matmul(lt, handle.h, d, m, n, k, 1.0f, da, db, 0, nullptr, "a plain FP32 product");
  report.metrics.num("call_ms", seconds_since(start) * 1000.0);
  const auto expected = ref::gemm(m, n, k, 1.0, a, m, b, k, 0.0, {}, m);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "192x160x224").num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  require_within(report, "rel_l2_error", error, kFp32Tolerance);
  char text[200];
  std::snprintf(text, sizeof text, "cublasLtMatmul FP32 192×160×224 with a heuristic algorithm: relative L2 error %.3g (tolerance %.3g)", error,
                kFp32Tolerance);
  report.status = Status::pass;
  report.detail = text;
}

void check_cublaslt_matmul_bias_epilogue(Report& report) {
  Library lib = require_library(report, "cublaslt");
  Driver d = open_driver(report);
  const Lt lt(lib);
  report_version(report, lib);
  LtHandle handle{lt.destroy};
  check_status(Api::cublas, "cublasLtCreate", lt.create(&handle.h));

  // A Linear layer: 128 output features, 96 tokens, 64 inputs, weights scaled by 1/8, a bias per
  // output feature; values around ±2, where GELU is far from linear and ReLU cuts half of them.
  constexpr int m = 128, n = 96, k = 64;
  constexpr float alpha = 0.125f;
  const auto a = random_symmetric(std::size_t{m} * k, 101), b = random_symmetric(std::size_t{k} * n, 102), bias = random_symmetric(m, 103);
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), dbias(d, bytes(bias));
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  dbias.upload(std::span<const float>(bias));
  const auto pre = ref::gemm(m, n, k, alpha, a, m, b, k, 0.0, {}, m);
  std::vector<double> relu(pre.size()), gelu(pre.size());
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      const auto at = static_cast<std::size_t>(i + j * m);
      const double v = pre[at] + static_cast<double>(bias[static_cast<std::size_t>(i)]);
      relu[at] = v > 0 ? v : 0.0;
      gelu[at] = ref::gelu_tanh(v);
    }
  }
  // ReLU is exact given its input: the FP32 bound. GELU: 1e-3 admits any faithful GELU, the
  // documented tanh form (FP32 rounding ~1e-7 here) and the exact erf form alike (2.2e-4 from
  // the tanh form on these values), while a missing bias (0.86) or activation (0.99) is far above.
  constexpr double kGeluTolerance = 1e-3;
  const auto got_relu = run_matmul(lt, handle.h, d, m, n, k, alpha, da, db, kEpilogueReluBias, &dbias, "bias + ReLU");
  const double relu_error = ref::rel_l2(std::span<const double>(relu), std::span<const float>(got_relu));
  const auto got_gelu = run_matmul(lt, handle.h, d, m, n, k, alpha, da, db, kEpilogueGeluBias, &dbias, "bias + GELU");
  const double gelu_error = ref::rel_l2(std::span<const double>(gelu), std::span<const float>(got_gelu));
  report.metrics.str("shape", "128x96x64");
  require_within(report, "relu_bias_rel_l2_error", relu_error, kFp32Tolerance);
  require_within(report, "gelu_bias_rel_l2_error", gelu_error, kGeluTolerance);
  char text[220];
  std::snprintf(text, sizeof text, "128×96×64 with bias + ReLU: relative L2 error %.3g (tolerance %.3g); bias + GELU: %.3g (tolerance %.3g)",
                relu_error, kFp32Tolerance, gelu_error, kGeluTolerance);
  report.status = Status::pass;
  report.detail = text;
}

}  // namespace zcuda::probe
