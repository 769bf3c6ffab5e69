// cusolver.*: dense linear algebra through cuSOLVER, what torch.linalg does with CUDA tensors
// (solve, cholesky, qr, eigh). Each result is judged by the test ratio LAPACK's own test suite
// uses for the routine, against its threshold of 30 (src/probe/reference_linalg.hpp). ZLUDA
// ships no cuSOLVER: there these checks say `missing`, with what that costs.
#include <cstdint>
#include <cstdio>
#include <string>

#include "blas_common.hpp"
#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"
#include "reference_linalg.hpp"

namespace zcuda::probe {
namespace {

using Handle = void*;
constexpr int kFillLower = 0;      // CUBLAS_FILL_MODE_LOWER
constexpr int kEigModeVector = 1;  // CUSOLVER_EIG_MODE_VECTOR

struct Solver {
  Library lib;
  Driver driver;
  Handle handle = nullptr;
  int (*destroy)(Handle) = nullptr;
  Solver() = default;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;
  ~Solver() {
    if (handle && destroy) destroy(handle);
  }
};

// cuSOLVER, then the driver (its handle binds to the current context), then a handle.
void open_cusolver(Report& report, Solver& s) {
  s.lib = require_library(report, "cusolver");
  s.driver = open_driver(report);
  auto create = require_symbol<int (*)(Handle*)>(s.lib, "cusolverDnCreate");
  s.destroy = require_symbol<int (*)(Handle)>(s.lib, "cusolverDnDestroy");
  check_status(Api::cusolver, "cusolverDnCreate", create(&s.handle));
}

// devInfo: 0 success; > 0 the matrix was singular / not positive definite / did not converge,
// which for these well-posed inputs is a wrong answer; < 0 a parameter was refused.
void require_info(const DeviceBuffer& info, const char* call) {
  const int value = info.download<int>(1)[0];
  if (value == 0) return;
  if (value < 0) throw Stop{Status::error, std::string(call) + " refused parameter " + std::to_string(-value), std::nullopt};
  throw Stop{Status::fail, std::string(call) + " reported info = " + std::to_string(value) + " for a well-conditioned matrix", std::nullopt};
}

void require_ratio(Report& report, const std::string& measure, double ratio) {
  report.metrics.num(measure, ratio);
  if (ratio <= ref::kLapackThreshold) return;
  char text[200];
  std::snprintf(text, sizeof text, "%s %.3g exceeds LAPACK's test threshold %.0f", measure.c_str(), ratio, ref::kLapackThreshold);
  throw Stop{Status::fail, text, std::nullopt};
}

// A random n×n matrix in [-1, 1) with ±1.2 added along the diagonal: safely nonsingular, yet
// far from diagonally dominant, so partial pivoting still has rows to swap.
std::vector<float> general_matrix(int n, std::uint64_t seed) {
  auto a = random_symmetric(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), seed);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i + i * n)] += i % 2 ? 1.2f : -1.2f;
  return a;
}

}  // namespace

void check_cusolver_lu_solve(Report& report) {
  Solver s;
  open_cusolver(report, s);
  auto buffer_size = require_symbol<int (*)(Handle, int, int, float*, int, int*)>(s.lib, "cusolverDnSgetrf_bufferSize");
  auto getrf = require_symbol<int (*)(Handle, int, int, float*, int, float*, int*, int*)>(s.lib, "cusolverDnSgetrf");
  auto getrs = require_symbol<int (*)(Handle, int, int, int, const float*, int, const int*, float*, int, int*)>(s.lib, "cusolverDnSgetrs");
  constexpr int n = 48, nrhs = 3;
  const auto a = general_matrix(n, 111);
  const auto b = random_symmetric(std::size_t{n} * nrhs, 112);
  const Driver& d = s.driver;
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), ipiv(d, n * 4), info(d, 4);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  int lwork = 0;
  check_status(Api::cusolver, "cusolverDnSgetrf_bufferSize", buffer_size(s.handle, n, n, static_cast<float*>(da.as_pointer()), n, &lwork));
  DeviceBuffer work(d, static_cast<std::size_t>(lwork > 0 ? lwork : 1) * 4);
  check_status(Api::cusolver, "cusolverDnSgetrf",
               getrf(s.handle, n, n, static_cast<float*>(da.as_pointer()), n, static_cast<float*>(work.as_pointer()),
                     static_cast<int*>(ipiv.as_pointer()), static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSgetrf");
  check_status(Api::cusolver, "cusolverDnSgetrs",
               getrs(s.handle, kOpN, n, nrhs, static_cast<const float*>(da.as_pointer()), n, static_cast<const int*>(ipiv.as_pointer()),
                     static_cast<float*>(db.as_pointer()), n, static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSgetrs");
  const auto x = db.download<float>(b.size());
  const double ratio =
      ref::solve_ratio(ref::Matrix::from<float>(n, n, a), ref::Matrix::from<float>(n, nrhs, x), ref::Matrix::from<float>(n, nrhs, b));
  report.metrics.str("shape", "48x48, 3 right-hand sides");
  require_ratio(report, "backward_error_ratio", ratio);
  char text[200];
  std::snprintf(text, sizeof text, "getrf + getrs, 48×48, 3 right-hand sides: ‖b − Ax‖/(‖A‖‖x‖ε) = %.3g (LAPACK threshold 30)", ratio);
  report.status = Status::pass;
  report.detail = text;
}

void check_cusolver_cholesky_solve(Report& report) {
  Solver s;
  open_cusolver(report, s);
  auto buffer_size = require_symbol<int (*)(Handle, int, int, float*, int, int*)>(s.lib, "cusolverDnSpotrf_bufferSize");
  auto potrf = require_symbol<int (*)(Handle, int, int, float*, int, float*, int, int*)>(s.lib, "cusolverDnSpotrf");
  auto potrs = require_symbol<int (*)(Handle, int, int, int, const float*, int, float*, int, int*)>(s.lib, "cusolverDnSpotrs");
  constexpr int n = 48, nrhs = 3;
  // A = MᵀM/n + I: symmetric positive definite, condition number a few tens.
  const auto m = random_symmetric(std::size_t{n} * n, 121);
  std::vector<float> a(std::size_t{n} * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i <= j; ++i) {
      double sum = 0;
      for (int p = 0; p < n; ++p) sum += static_cast<double>(m[static_cast<std::size_t>(p + i * n)]) * m[static_cast<std::size_t>(p + j * n)];
      const auto v = static_cast<float>(sum / n + (i == j ? 1.0 : 0.0));
      a[static_cast<std::size_t>(i + j * n)] = v;
      a[static_cast<std::size_t>(j + i * n)] = v;
    }
  }
  const auto b = random_symmetric(std::size_t{n} * nrhs, 122);
  const Driver& d = s.driver;
  DeviceBuffer da(d, bytes(a)), db(d, bytes(b)), info(d, 4);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  int lwork = 0;
  check_status(Api::cusolver, "cusolverDnSpotrf_bufferSize", buffer_size(s.handle, kFillLower, n, static_cast<float*>(da.as_pointer()), n, &lwork));
  DeviceBuffer work(d, static_cast<std::size_t>(lwork > 0 ? lwork : 1) * 4);
  check_status(Api::cusolver, "cusolverDnSpotrf",
               potrf(s.handle, kFillLower, n, static_cast<float*>(da.as_pointer()), n, static_cast<float*>(work.as_pointer()), lwork,
                     static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSpotrf");
  check_status(Api::cusolver, "cusolverDnSpotrs",
               potrs(s.handle, kFillLower, n, nrhs, static_cast<const float*>(da.as_pointer()), n, static_cast<float*>(db.as_pointer()), n,
                     static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSpotrs");
  const auto x = db.download<float>(b.size());
  const double ratio =
      ref::solve_ratio(ref::Matrix::from<float>(n, n, a), ref::Matrix::from<float>(n, nrhs, x), ref::Matrix::from<float>(n, nrhs, b));
  report.metrics.str("shape", "48x48 SPD, 3 right-hand sides");
  require_ratio(report, "backward_error_ratio", ratio);
  char text[200];
  std::snprintf(text, sizeof text, "potrf + potrs, 48×48 SPD, 3 right-hand sides: ‖b − Ax‖/(‖A‖‖x‖ε) = %.3g (LAPACK threshold 30)", ratio);
  report.status = Status::pass;
  report.detail = text;
}

void check_cusolver_qr(Report& report) {
  Solver s;
  open_cusolver(report, s);
  auto buffer_size = require_symbol<int (*)(Handle, int, int, float*, int, int*)>(s.lib, "cusolverDnSgeqrf_bufferSize");
  auto geqrf = require_symbol<int (*)(Handle, int, int, float*, int, float*, float*, int, int*)>(s.lib, "cusolverDnSgeqrf");
  constexpr int m = 64, n = 48;
  const auto a = random_symmetric(std::size_t{m} * n, 131);
  const Driver& d = s.driver;
  DeviceBuffer da(d, bytes(a)), tau(d, n * 4), info(d, 4);
  da.upload(std::span<const float>(a));
  int lwork = 0;
  check_status(Api::cusolver, "cusolverDnSgeqrf_bufferSize", buffer_size(s.handle, m, n, static_cast<float*>(da.as_pointer()), m, &lwork));
  DeviceBuffer work(d, static_cast<std::size_t>(lwork > 0 ? lwork : 1) * 4);
  check_status(Api::cusolver, "cusolverDnSgeqrf",
               geqrf(s.handle, m, n, static_cast<float*>(da.as_pointer()), m, static_cast<float*>(tau.as_pointer()),
                     static_cast<float*>(work.as_pointer()), lwork, static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSgeqrf");
  const auto factored = da.download<float>(a.size());
  const auto taus = tau.download<float>(n);
  const std::vector<double> tau_d(taus.begin(), taus.end());
  const auto ratios = ref::qr_ratios(ref::Matrix::from<float>(m, n, a), ref::Matrix::from<float>(m, n, factored), tau_d);
  report.metrics.str("shape", "64x48");
  require_ratio(report, "factorization_ratio", ratios.factorization);
  require_ratio(report, "orthogonality_ratio", ratios.orthogonality);
  char text[200];
  std::snprintf(text, sizeof text, "geqrf, 64×48: ‖A − QR‖/(m‖A‖ε) = %.3g, ‖I − QᵀQ‖/(mε) = %.3g (LAPACK threshold 30)", ratios.factorization,
                ratios.orthogonality);
  report.status = Status::pass;
  report.detail = text;
}

void check_cusolver_syevd(Report& report) {
  Solver s;
  open_cusolver(report, s);
  auto buffer_size = require_symbol<int (*)(Handle, int, int, int, const float*, int, const float*, int*)>(s.lib, "cusolverDnSsyevd_bufferSize");
  auto syevd = require_symbol<int (*)(Handle, int, int, int, float*, int, float*, float*, int, int*)>(s.lib, "cusolverDnSsyevd");
  constexpr int n = 48;
  const auto m = random_symmetric(std::size_t{n} * n, 141);
  std::vector<float> a(m.size());
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      // Float addition commutes, so a(i, j) and a(j, i) are the same float.
      a[static_cast<std::size_t>(i + j * n)] = 0.5f * (m[static_cast<std::size_t>(i + j * n)] + m[static_cast<std::size_t>(j + i * n)]);
    }
  }
  const Driver& d = s.driver;
  DeviceBuffer da(d, bytes(a)), w(d, n * 4), info(d, 4);
  da.upload(std::span<const float>(a));
  int lwork = 0;
  check_status(Api::cusolver, "cusolverDnSsyevd_bufferSize",
               buffer_size(s.handle, kEigModeVector, kFillLower, n, static_cast<const float*>(da.as_pointer()), n,
                           static_cast<const float*>(w.as_pointer()), &lwork));
  DeviceBuffer work(d, static_cast<std::size_t>(lwork > 0 ? lwork : 1) * 4);
  check_status(Api::cusolver, "cusolverDnSsyevd",
               syevd(s.handle, kEigModeVector, kFillLower, n, static_cast<float*>(da.as_pointer()), n, static_cast<float*>(w.as_pointer()),
                     static_cast<float*>(work.as_pointer()), lwork, static_cast<int*>(info.as_pointer())));
  require_info(info, "cusolverDnSsyevd");
  const auto vectors = da.download<float>(a.size());
  const auto values = w.download<float>(n);
  const std::vector<double> values_d(values.begin(), values.end());
  const auto original = ref::Matrix::from<float>(n, n, a);
  const auto ratios = ref::eigen_ratios(original, ref::Matrix::from<float>(n, n, vectors), values_d);
  // Eigenvalues against a double-precision Jacobi solver, on the same scale as ssyt21's ratios.
  const auto expected = ref::symmetric_eigenvalues(original);
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(values_d[static_cast<std::size_t>(i)] - expected[static_cast<std::size_t>(i)]));
  const double value_ratio = worst / (n * ref::norm1(original) * ref::kFloatUlp);
  report.metrics.str("shape", "48x48 symmetric").num("smallest_eigenvalue", values_d.front()).num("largest_eigenvalue", values_d.back());
  require_ratio(report, "decomposition_ratio", ratios.decomposition);
  require_ratio(report, "orthogonality_ratio", ratios.orthogonality);
  require_ratio(report, "eigenvalue_ratio", std::isnan(value_ratio) ? INFINITY : value_ratio);
  char text[220];
  std::snprintf(text, sizeof text, "syevd, 48×48: ‖A − VΛVᵀ‖/(n‖A‖ulp) = %.3g, ‖I − VVᵀ‖/(n·ulp) = %.3g, eigenvalues %.3g (LAPACK threshold 30)",
                ratios.decomposition, ratios.orthogonality, value_ratio);
  report.status = Status::pass;
  report.detail = text;
}

}  // namespace zcuda::probe
