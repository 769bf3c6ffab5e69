#pragma once
// CPU references for the cuSOLVER checks, in double precision: the test ratios LAPACK's own test
// suite uses (TESTING/LIN sget02, sqrt01; TESTING/EIG ssyt21), which a correct implementation
// keeps below 30, and a Jacobi eigenvalue solver. Matrices are column-major, as LAPACK's.
// Header-only, shared with the unit tests.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace zcuda::probe::ref {

// LAPACK's test threshold: a ratio above it means the routine got the wrong answer.
inline constexpr double kLapackThreshold = 30.0;
// SLAMCH('Epsilon') and SLAMCH('Precision') for binary32.
inline constexpr double kFloatEps = 0x1p-24;
inline constexpr double kFloatUlp = 0x1p-23;

// A column-major matrix of doubles.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> data;

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), data(r * c, 0.0) {}
  template <class T>
  static Matrix from(std::size_t r, std::size_t c, std::span<const T> values) {
    Matrix m(r, c);
    for (std::size_t i = 0; i < r * c; ++i) m.data[i] = static_cast<double>(values[i]);
    return m;
  }
  static Matrix identity(std::size_t n) {
    Matrix m(n, n);
    for (std::size_t i = 0; i < n; ++i) m(i, i) = 1.0;
    return m;
  }
  double& operator()(std::size_t i, std::size_t j) { return data[i + j * rows]; }
  double operator()(std::size_t i, std::size_t j) const { return data[i + j * rows]; }
};

inline Matrix multiply(const Matrix& a, const Matrix& b, bool transpose_a = false) {
  const std::size_t m = transpose_a ? a.cols : a.rows, k = transpose_a ? a.rows : a.cols;
  Matrix out(m, b.cols);
  for (std::size_t j = 0; j < b.cols; ++j) {
    for (std::size_t p = 0; p < k; ++p) {
      const double bpj = b(p, j);
      for (std::size_t i = 0; i < m; ++i) out(i, j) += (transpose_a ? a(p, i) : a(i, p)) * bpj;
    }
  }
  return out;
}

inline Matrix subtract(const Matrix& a, const Matrix& b) {
  Matrix out = a;
  for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] -= b.data[i];
  return out;
}

// ‖A‖₁: the largest column sum of absolute values (SLANGE('1')).
inline double norm1(const Matrix& a) {
  double best = 0;
  for (std::size_t j = 0; j < a.cols; ++j) {
    double sum = 0;
    for (std::size_t i = 0; i < a.rows; ++i) sum += std::fabs(a(i, j));
    best = std::max(best, sum);
  }
  return best;
}

// sget02 / spot02: max over the columns j of ‖b_j − A·x_j‖₁ / (‖A‖₁ · ‖x_j‖₁ · eps). Also NaN-safe:
// a NaN anywhere gives an infinite ratio.
inline double solve_ratio(const Matrix& a, const Matrix& x, const Matrix& b) {
  const Matrix r = subtract(b, multiply(a, x));
  const double a_norm = norm1(a);
  double worst = 0;
  for (std::size_t j = 0; j < x.cols; ++j) {
    double r_norm = 0, x_norm = 0;
    for (std::size_t i = 0; i < r.rows; ++i) r_norm += std::fabs(r(i, j));
    for (std::size_t i = 0; i < x.rows; ++i) x_norm += std::fabs(x(i, j));
    if (std::isnan(r_norm) || std::isnan(x_norm) || x_norm <= 0 || a_norm <= 0) return INFINITY;
    worst = std::max(worst, r_norm / a_norm / x_norm / kFloatEps);
  }
  return worst;
}

// The orthogonal Q (m×m) of a QR factorisation stored the LAPACK way: Householder vectors below
// the diagonal of `factored` (m×n, unit leading element implied), scalars `tau`. Q = H₁·H₂·…·H_k.
inline Matrix householder_q(const Matrix& factored, std::span<const double> tau) {
  const std::size_t m = factored.rows, k = std::min(factored.rows, factored.cols);
  Matrix q = Matrix::identity(m);
  // Applied right to left to the identity: Q = H₁(H₂(…(H_k·I))).
  for (std::size_t step = k; step-- > 0;) {
    std::vector<double> v(m, 0.0);
    v[step] = 1.0;
    for (std::size_t i = step + 1; i < m; ++i) v[i] = factored(i, step);
    for (std::size_t j = 0; j < m; ++j) {
      double dot = 0;
      for (std::size_t i = step; i < m; ++i) dot += v[i] * q(i, j);
      for (std::size_t i = step; i < m; ++i) q(i, j) -= tau[step] * v[i] * dot;
    }
  }
  return q;
}

struct QrRatios {
  double factorization = 0;  // ‖A − Q·R‖₁ / (m · ‖A‖₁ · eps)   (sqrt01)
  double orthogonality = 0;  // ‖I − QᵀQ‖₁ / (m · eps)          (sqrt01)
};

// `a` the original m×n matrix, `factored` what geqrf left in its place, `tau` its scalars.
inline QrRatios qr_ratios(const Matrix& a, const Matrix& factored, std::span<const double> tau) {
  const std::size_t m = a.rows, n = a.cols;
  const Matrix q = householder_q(factored, tau);
  Matrix r(m, n);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i <= j && i < m; ++i) r(i, j) = factored(i, j);
  }
  QrRatios out;
  const double md = static_cast<double>(m);
  const double a_norm = norm1(a);
  out.factorization = a_norm > 0 ? norm1(subtract(a, multiply(q, r))) / (md * a_norm * kFloatEps) : INFINITY;
  out.orthogonality = norm1(subtract(Matrix::identity(m), multiply(q, q, true))) / (md * kFloatEps);
  if (std::isnan(out.factorization)) out.factorization = INFINITY;
  if (std::isnan(out.orthogonality)) out.orthogonality = INFINITY;
  return out;
}

struct EigenRatios {
  double decomposition = 0;  // ‖A − V·Λ·Vᵀ‖₁ / (n · ‖A‖₁ · ulp)  (ssyt21)
  double orthogonality = 0;  // ‖I − V·Vᵀ‖₁ / (n · ulp)           (ssyt21)
};

inline EigenRatios eigen_ratios(const Matrix& a, const Matrix& vectors, std::span<const double> values) {
  const std::size_t n = a.rows;
  Matrix scaled = vectors;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) scaled(i, j) *= values[j];
  }
  Matrix vt(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) vt(i, j) = vectors(j, i);
  }
  EigenRatios out;
  const double nd = static_cast<double>(n);
  const double a_norm = norm1(a);
  out.decomposition = a_norm > 0 ? norm1(subtract(a, multiply(scaled, vt))) / (nd * a_norm * kFloatUlp) : INFINITY;
  out.orthogonality = norm1(subtract(Matrix::identity(n), multiply(vectors, vt))) / (nd * kFloatUlp);
  if (std::isnan(out.decomposition)) out.decomposition = INFINITY;
  if (std::isnan(out.orthogonality)) out.orthogonality = INFINITY;
  return out;
}

// Eigenvalues of a symmetric matrix by cyclic Jacobi rotations, ascending (as syevd returns them).
inline std::vector<double> symmetric_eigenvalues(Matrix a) {
  const std::size_t n = a.rows;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = 0; i < n; ++i) {
        total += a(i, j) * a(i, j);
        if (i != j) off += a(i, j) * a(i, j);
      }
    }
    if (off <= 1e-30 * total) break;
    for (std::size_t p = 0; p + 1 < n; ++p) {
      for (std::size_t q = p + 1; q < n; ++q) {
        if (a(p, q) == 0.0) continue;
        const double theta = (a(q, q) - a(p, p)) / (2.0 * a(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {  // A ← A·J
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {  // A ← Jᵀ·A
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
      }
    }
  }
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = a(i, i);
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace zcuda::probe::ref
