#pragma once
// CPU reference math for zcuda-probe's checks, computed in double precision. Header-only so the
// probe (which links nothing third-party) and the unit tests share exactly the same code.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <span>
#include <vector>

namespace zcuda::probe::ref {

// Deterministic pseudo-random numbers (64-bit LCG, Knuth's MMIX constants): every run and every
// machine computes the same inputs, so a failure can be reproduced.
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed) : state_(seed) {}
  std::uint32_t next_u32() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state_ >> 32);
  }
  // Uniform in [0, 1) with 24 bits: every value is exactly representable as a float.
  float unit() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }
  // Uniform in [-1, 1).
  float symmetric() { return unit() * 2.0f - 1.0f; }
  // A multiple of 1/64 in [-1, 1]: exactly representable in IEEE half precision.
  float sixty_fourths() { return static_cast<float>(static_cast<int>(next_u32() % 129u) - 64) / 64.0f; }
  std::uint32_t below(std::uint32_t bound) { return next_u32() % bound; }

 private:
  std::uint64_t state_;
};

// C = alpha * op(A) * op(B) + beta * C, column-major (the BLAS convention); op(A) m×k, op(B)
// k×n, C m×n. transpose_a: A is stored k×m and used transposed (cuBLAS's CUBLAS_OP_T).
inline std::vector<double> gemm_op(bool transpose_a, bool transpose_b, int m, int n, int k, double alpha, std::span<const float> a, int lda,
                                   std::span<const float> b, int ldb, double beta, std::span<const float> c, int ldc) {
  std::vector<double> out(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p) {
        const auto ai = static_cast<std::size_t>(transpose_a ? p + i * lda : i + p * lda);
        const auto bi = static_cast<std::size_t>(transpose_b ? j + p * ldb : p + j * ldb);
        sum += static_cast<double>(a[ai]) * static_cast<double>(b[bi]);
      }
      const double old = c.empty() ? 0.0 : static_cast<double>(c[static_cast<std::size_t>(i + j * ldc)]);
      out[static_cast<std::size_t>(i + j * m)] = alpha * sum + beta * old;
    }
  }
  return out;
}

// C = alpha * A * B + beta * C, column-major, A m×k, B k×n, C m×n.
inline std::vector<double> gemm(int m, int n, int k, double alpha, std::span<const float> a, int lda, std::span<const float> b, int ldb, double beta,
                                std::span<const float> c, int ldc) {
  return gemm_op(false, false, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Unnormalised discrete Fourier transform, sign -1 forward, +1 inverse (cuFFT's convention:
// inverse(forward(x)) = N·x). Twiddles are indexed by (j·k mod N) so the angle stays exact.
inline std::vector<std::complex<double>> dft(std::span<const std::complex<double>> x, int sign) {
  const std::size_t n = x.size();
  std::vector<std::complex<double>> twiddle(n);
  for (std::size_t t = 0; t < n; ++t) {
    const double angle = static_cast<double>(sign) * 2.0 * std::numbers::pi * static_cast<double>(t) / static_cast<double>(n);
    twiddle[t] = {std::cos(angle), std::sin(angle)};
  }
  std::vector<std::complex<double>> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += x[j] * twiddle[(j * k) % n];
    out[k] = sum;
  }
  return out;
}

// y = alpha * A * x + beta * y0 for A in CSR (zero-based).
inline std::vector<double> spmv_csr(int rows, std::span<const int> row_offsets, std::span<const int> columns, std::span<const float> values,
                                    std::span<const float> x, double alpha, double beta, std::span<const float> y0) {
  std::vector<double> y(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int e = row_offsets[static_cast<std::size_t>(r)]; e < row_offsets[static_cast<std::size_t>(r) + 1]; ++e) {
      sum += static_cast<double>(values[static_cast<std::size_t>(e)]) *
             static_cast<double>(x[static_cast<std::size_t>(columns[static_cast<std::size_t>(e)])]);
    }
    y[static_cast<std::size_t>(r)] = alpha * sum + beta * static_cast<double>(y0[static_cast<std::size_t>(r)]);
  }
  return y;
}

// C = alpha * A * B + beta * C0 for A (m×k) in COO (zero-based), B (k×n) and C (m×n) dense
// column-major with leading dimensions k and m.
inline std::vector<double> spmm_coo(int m, int n, int k, std::span<const int> row_index, std::span<const int> col_index,
                                    std::span<const float> values, std::span<const float> b, double alpha, double beta, std::span<const float> c0) {
  std::vector<double> product(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), 0.0);
  for (std::size_t e = 0; e < values.size(); ++e) {
    const auto r = static_cast<std::size_t>(row_index[e]);
    const auto c = static_cast<std::size_t>(col_index[e]);
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {
      product[r + j * static_cast<std::size_t>(m)] += static_cast<double>(values[e]) * static_cast<double>(b[c + j * static_cast<std::size_t>(k)]);
    }
  }
  for (std::size_t i = 0; i < product.size(); ++i) product[i] = alpha * product[i] + beta * static_cast<double>(c0[i]);
  return product;
}

// Relative L2 error ‖got − ref‖ / ‖ref‖ (the measure NVIDIA's samples use). Falls back to the
// absolute L2 error when the reference is all zeros.
template <class T>
double rel_l2(std::span<const double> ref, std::span<const T> got) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// Largest |got − ref|; NaN in `got` counts as infinitely wrong.
template <class T>
double max_abs_error(std::span<const double> ref, std::span<const T> got) {
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - ref[i]);
    if (std::isnan(d)) return INFINITY;
    if (d > worst) worst = d;
  }
  return worst;
}

// Interleaved complex floats (cuFFT's cufftComplex) against complex doubles.
inline double rel_l2_complex(std::span<const std::complex<double>> ref, std::span<const float> interleaved) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const std::complex<double> got{interleaved[2 * i], interleaved[2 * i + 1]};
    diff += std::norm(got - ref[i]);
    norm += std::norm(ref[i]);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// IEEE 754 binary16 from binary32, round to nearest even (what cuda_fp16's __float2half does).
inline std::uint16_t float_to_half(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFFu) return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));  // inf, NaN
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow to infinity
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal
    mantissa |= 0x800000u;     // make the implicit bit explicit
    const auto shift = static_cast<std::uint32_t>(14 - e);
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: still correct
  return static_cast<std::uint16_t>(sign | half);
}

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  const std::uint32_t mantissa = h & 0x3FFu;
  float magnitude = 0;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

// bfloat16 (the upper half of a binary32) from binary32, round to nearest even (what
// cuda_bf16's __float2bfloat16 does); NaN stays NaN.
inline std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float out = 0;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// A binary32 value cut to TF32's 10 explicit mantissa bits, the way tensor cores read FP32
// registers (truncation: the worst case for the tolerance of cublas.sgemm_tf32).
inline float tf32_truncate(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  bits &= 0xFFFFE000u;
  float out = 0;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// GELU as cuBLASLt's epilogue computes it: the tanh approximation.
inline double gelu_tanh(double x) {
  const double inner = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + std::tanh(inner));
}

// The exact GELU, x·Φ(x): what a library would give if it ignored the documented approximation.
inline double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }

// A random sparse matrix in CSR with about `per_row` entries per row, columns sorted and distinct.
struct Csr {
  int rows = 0, cols = 0;
  std::vector<int> row_offsets, columns;
  std::vector<float> values;
};

inline Csr random_csr(int rows, int cols, int per_row, Lcg& rng) {
  Csr m;
  m.rows = rows;
  m.cols = cols;
  m.row_offsets.push_back(0);
  std::vector<char> used(static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    std::fill(used.begin(), used.end(), 0);
    const int count = 1 + static_cast<int>(rng.below(static_cast<std::uint32_t>(2 * per_row)));
    for (int i = 0; i < count && i < cols; ++i) used[rng.below(static_cast<std::uint32_t>(cols))] = 1;
    for (int c = 0; c < cols; ++c) {
      if (!used[static_cast<std::size_t>(c)]) continue;
      m.columns.push_back(c);
      m.values.push_back(rng.symmetric());
    }
    m.row_offsets.push_back(static_cast<int>(m.columns.size()));
  }
  return m;
}

// The same matrix as COO row indices (column indices and values are shared with the CSR form).
inline std::vector<int> csr_row_indices(const Csr& m) {
  std::vector<int> rows;
  rows.reserve(m.columns.size());
  for (int r = 0; r < m.rows; ++r) {
    for (int e = m.row_offsets[static_cast<std::size_t>(r)]; e < m.row_offsets[static_cast<std::size_t>(r) + 1]; ++e) rows.push_back(r);
  }
  return rows;
}

}  // namespace zcuda::probe::ref
