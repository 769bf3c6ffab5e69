// The CPU references zcuda-probe compares the GPU against, and the claims docs/verify.md makes
// about its tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <set>

#include "reference.hpp"

namespace zcuda::probe::ref {
namespace {

template <class T>
std::span<const T> view(const std::vector<T>& v) {
  return std::span<const T>(v);
}

TEST(Reference, GemmIsColumnMajorWithAlphaAndBeta) {
  // A = [1 3; 2 4] column-major, B = [5 7; 6 8], C = [1 1; 1 1].
  const std::vector<float> a{1, 2, 3, 4}, b{5, 6, 7, 8}, c{1, 1, 1, 1};
  const auto out = gemm(2, 2, 2, 2.0, a, 2, b, 2, 0.5, c, 2);
  // A·B = [23 31; 34 46]; 2·A·B + 0.5·C.
  EXPECT_EQ(out, (std::vector<double>{46.5, 68.5, 62.5, 92.5}));
}

TEST(Reference, GemmHandlesNonSquareShapes) {
  // A 1×3 times B 3×2.
  const std::vector<float> a{1, 2, 3}, b{1, 0, 1, 0, 1, 0};
  EXPECT_EQ(gemm(1, 2, 3, 1.0, a, 1, b, 3, 0.0, {}, 1), (std::vector<double>{4, 2}));
}

// The cublas.sgemm check's inputs and its tolerance of 1e-6: a naive left-to-right FP32 product
// (the least accurate correct implementation) is well inside it, a product whose inputs went
// through FP16 (a wrong precision) is far outside it.
TEST(Reference, Fp32ToleranceSeparatesCorrectFromWrongPrecision) {
  constexpr int m = 256, n = 192, k = 320;
  auto fill = [](std::size_t count, std::uint64_t seed) {
    Lcg rng(seed);
    std::vector<float> v(count);
    for (auto& x : v) x = rng.unit();
    return v;
  };
  const auto a = fill(std::size_t{m} * k, 11), b = fill(std::size_t{k} * n, 12), c = fill(std::size_t{m} * n, 13);
  const auto expected = gemm(m, n, k, 1.0, a, m, b, k, 0.5, c, m);
  auto naive = [&](bool through_half) {
    std::vector<float> out(std::size_t{m} * n);
    auto q = [&](float x) { return through_half ? half_to_float(float_to_half(x)) : x; };
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        float sum = 0;
        for (int p = 0; p < k; ++p) sum += q(a[static_cast<std::size_t>(i + p * m)]) * q(b[static_cast<std::size_t>(p + j * k)]);
        out[static_cast<std::size_t>(i + j * m)] = sum + 0.5f * c[static_cast<std::size_t>(i + j * m)];
      }
    }
    return out;
  };
  const auto fp32 = naive(false);
  const double fp32_error = rel_l2(view(expected), view(fp32));
  EXPECT_LT(fp32_error, 1e-6 / 3) << "a naive FP32 sum must pass with margin";
  const auto fp16 = naive(true);
  EXPECT_GT(rel_l2(view(expected), view(fp16)), 1e-5) << "FP16-rounded inputs (also TF32's precision) must fail by 10x";
}

// cublas.sgemm_tf32's tolerance of 2e-3: a product whose inputs are cut to TF32 (truncation, the
// worst rounding) lands well inside it, while staying visibly above FP32 precision.
TEST(Reference, Tf32ToleranceAdmitsTf32Precision) {
  constexpr int m = 256, n = 192, k = 320;
  auto fill = [](std::size_t count, std::uint64_t seed) {
    Lcg rng(seed);
    std::vector<float> v(count);
    for (auto& x : v) x = rng.unit();
    return v;
  };
  const auto a = fill(std::size_t{m} * k, 41), b = fill(std::size_t{k} * n, 42), c = fill(std::size_t{m} * n, 43);
  const auto expected = gemm(m, n, k, 1.0, a, m, b, k, 0.5, c, m);
  std::vector<float> tf32(std::size_t{m} * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float sum = 0;
      for (int p = 0; p < k; ++p) {
        sum += tf32_truncate(a[static_cast<std::size_t>(i + p * m)]) * tf32_truncate(b[static_cast<std::size_t>(p + j * k)]);
      }
      tf32[static_cast<std::size_t>(i + j * m)] = sum + 0.5f * c[static_cast<std::size_t>(i + j * m)];
    }
  }
  const double error = rel_l2(view(expected), view(tf32));
  EXPECT_LT(error, 2e-3 / 2) << "TF32 must pass with margin";
  EXPECT_GT(error, 1e-4) << "and is far from FP32's 3e-7";
  // The bound's arithmetic: both inputs cut by at most 2^-10 relative each.
  EXPECT_LT((1 + 0x1p-10) * (1 + 0x1p-10) - 1 + k * 0x1p-24, 2e-3);
}

TEST(Reference, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3F80);             // tie: to even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);         // tie: to even (up)
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);  // above the tie
  EXPECT_EQ(bf16_to_float(0x3F81), 1.0f + 0x1p-7f);
  EXPECT_NE(float_to_bf16(NAN) & 0x7F, 0) << "NaN stays NaN";
  Lcg rng(22);
  for (int i = 0; i < 1000; ++i) {
    const float x = rng.sixty_fourths();
    EXPECT_EQ(bf16_to_float(float_to_bf16(x)), x) << "cublas.gemm_ex_bf16's inputs are exact in bfloat16";
  }
}

TEST(Reference, GeluFormsAndTheEpilogueTolerance) {
  EXPECT_EQ(gelu_tanh(0.0), 0.0);
  EXPECT_NEAR(gelu_tanh(1.0), 0.841192, 1e-6);
  EXPECT_NEAR(gelu_erf(1.0), 0.841345, 1e-6);
  EXPECT_NEAR(gelu_tanh(10.0), 10.0, 1e-12);
  EXPECT_NEAR(gelu_tanh(-10.0), 0.0, 1e-12);
  // The two forms differ by under 5e-4 anywhere: cublaslt.matmul_bias_epilogue's GELU tolerance
  // (1e-3 relative L2) admits either, while a missing bias or activation is of order 1.
  double worst = 0;
  for (double x = -8; x <= 8; x += 1e-3) worst = std::max(worst, std::fabs(gelu_tanh(x) - gelu_erf(x)));
  EXPECT_LT(worst, 5e-4);
  EXPECT_GT(worst, 1e-4);
}

TEST(Reference, GemmOpTransposesA) {
  // A stored 2×1 = [1; 2] used transposed (1×2), times B = [3; 4]: 11.
  EXPECT_EQ(gemm_op(true, false, 1, 1, 2, 1.0, std::vector<float>{1, 2}, 2, std::vector<float>{3, 4}, 2, 0.0, {}, 1), (std::vector<double>{11}));
  // Bᵀ: B stored 1×2 = [3 4], used as a 2×1 column.
  EXPECT_EQ(gemm_op(false, true, 1, 1, 2, 1.0, std::vector<float>{1, 2}, 1, std::vector<float>{3, 4}, 1, 0.0, {}, 1), (std::vector<double>{11}));
}

TEST(Reference, SixtyFourthsGemmIsExactInFloat) {
  // cublas.gemm_ex_f16's argument: inputs k/64 give products and sums exact in FP32.
  constexpr int k = 512;
  Lcg rng(21);
  std::vector<float> a(k), b(k);
  for (auto& x : a) x = rng.sixty_fourths();
  for (auto& x : b) x = rng.sixty_fourths();
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += a[static_cast<std::size_t>(p)] * b[static_cast<std::size_t>(p)];
  EXPECT_EQ(static_cast<double>(sum), gemm(1, 1, k, 1.0, a, 1, b, k, 0.0, {}, 1)[0]);
  for (float x : a) EXPECT_EQ(half_to_float(float_to_half(x)), x);
}

TEST(Reference, DftOfImpulseAndToneAndRoundTrip) {
  constexpr std::size_t n = 16;
  std::vector<std::complex<double>> impulse(n, 0.0);
  impulse[0] = 1.0;
  for (const auto& v : dft(impulse, -1)) EXPECT_NEAR(std::abs(v - std::complex<double>(1.0)), 0.0, 1e-12);

  std::vector<std::complex<double>> tone(n);
  for (std::size_t j = 0; j < n; ++j) tone[j] = std::polar(1.0, 2.0 * std::numbers::pi * 3.0 * static_cast<double>(j) / n);
  const auto spectrum = dft(tone, -1);
  for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(spectrum[k]), k == 3 ? 16.0 : 0.0, 1e-9) << k;

  Lcg rng(7);
  std::vector<std::complex<double>> x(n);
  for (auto& v : x) v = {rng.symmetric(), rng.symmetric()};
  auto back = dft(dft(x, -1), +1);
  for (auto& v : back) v /= static_cast<double>(n);
  double err = 0;
  for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::abs(back[i] - x[i]));
  EXPECT_LT(err, 1e-12);
}

TEST(Reference, RelL2ComplexMeasuresInterleavedFloats) {
  const std::vector<std::complex<double>> ref{{3, 4}, {0, 0}};
  const std::vector<float> same{3, 4, 0, 0}, off{3, 4, 0.5f, 0};
  EXPECT_EQ(rel_l2_complex(ref, same), 0.0);
  EXPECT_DOUBLE_EQ(rel_l2_complex(ref, off), 0.1);  // 0.5 / 5
}

TEST(Reference, SpmvCsrMatchesNvidiasSample) {
  // CUDALibrarySamples cuSPARSE spmv_csr: y = A·x = [19, 8, 51, 52].
  const std::vector<int> offsets{0, 3, 4, 7, 9}, columns{0, 2, 3, 1, 0, 2, 3, 1, 3};
  const std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8, 9}, x{1, 2, 3, 4}, y0{0, 0, 0, 0};
  EXPECT_EQ(spmv_csr(4, offsets, columns, values, x, 1.0, 0.0, y0), (std::vector<double>{19, 8, 51, 52}));
  EXPECT_EQ(spmv_csr(4, offsets, columns, values, x, 2.0, 1.0, std::vector<float>{1, 1, 1, 1}), (std::vector<double>{39, 17, 103, 105}));
}

TEST(Reference, SpmmCooAgreesWithDenseGemm) {
  Lcg rng(51);
  const auto a = random_csr(30, 40, 4, rng);
  const auto rows = csr_row_indices(a);
  std::vector<float> dense(30 * 40, 0.0f);
  for (std::size_t e = 0; e < a.values.size(); ++e) dense[static_cast<std::size_t>(rows[e] + a.columns[e] * 30)] = a.values[e];
  std::vector<float> b(40 * 5), c(30 * 5);
  for (auto& v : b) v = rng.symmetric();
  for (auto& v : c) v = rng.symmetric();
  const auto sparse = spmm_coo(30, 5, 40, rows, a.columns, a.values, b, 1.5, 0.25, c);
  const auto reference = gemm(30, 5, 40, 1.5, dense, 30, b, 40, 0.25, c, 30);
  ASSERT_EQ(sparse.size(), reference.size());
  for (std::size_t i = 0; i < sparse.size(); ++i) EXPECT_NEAR(sparse[i], reference[i], 1e-12);
}

TEST(Reference, RandomCsrIsWellFormed) {
  Lcg rng(41);
  const auto m = random_csr(100, 80, 8, rng);
  ASSERT_EQ(m.row_offsets.size(), 101u);
  EXPECT_EQ(m.row_offsets.front(), 0);
  EXPECT_EQ(static_cast<std::size_t>(m.row_offsets.back()), m.columns.size());
  for (int r = 0; r < 100; ++r) {
    for (int e = m.row_offsets[static_cast<std::size_t>(r)] + 1; e < m.row_offsets[static_cast<std::size_t>(r) + 1]; ++e) {
      EXPECT_LT(m.columns[static_cast<std::size_t>(e) - 1], m.columns[static_cast<std::size_t>(e)]) << "sorted, distinct";
    }
  }
  for (int c : m.columns) EXPECT_TRUE(c >= 0 && c < 80);
}

TEST(Reference, ErrorMeasures) {
  const std::vector<double> ref{3, 4};
  EXPECT_DOUBLE_EQ(rel_l2(view(ref), view(std::vector<float>{3, 4})), 0.0);
  EXPECT_DOUBLE_EQ(rel_l2(view(ref), view(std::vector<float>{3, 5})), 0.2);                        // 1 / 5
  EXPECT_DOUBLE_EQ(rel_l2(view(std::vector<double>{0, 0}), view(std::vector<float>{3, 4})), 5.0);  // absolute
  EXPECT_DOUBLE_EQ(max_abs_error(view(ref), view(std::vector<float>{2, 4.5f})), 1.0);
  EXPECT_TRUE(std::isinf(max_abs_error(view(ref), view(std::vector<float>{NAN, 4}))));
  EXPECT_TRUE(std::isnan(rel_l2(view(ref), view(std::vector<float>{NAN, 4}))));  // and NaN fails every "<=" test
}

TEST(Reference, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(0.5f), 0x3800);
  EXPECT_EQ(float_to_half(1.0f / 64), 0x2400);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);                          // rounds up to infinity
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie: to even
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie: to even (up)
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);             // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);             // underflows to zero
  EXPECT_EQ(float_to_half(INFINITY), 0x7C00);
  EXPECT_EQ(float_to_half(NAN) & 0x7C00, 0x7C00);
  EXPECT_NE(float_to_half(NAN) & 0x3FF, 0);
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    ASSERT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h) << "every finite half survives a round trip";
  }
}

TEST(Reference, LcgIsDeterministicAndInRange) {
  Lcg a(1), b(1);
  std::set<float> seen;
  for (int i = 0; i < 1000; ++i) {
    const float x = a.unit();
    EXPECT_EQ(x, b.unit());
    EXPECT_TRUE(x >= 0.0f && x < 1.0f);
    seen.insert(x);
    const float s = a.sixty_fourths();
    EXPECT_EQ(s * 64, std::round(s * 64));
    EXPECT_TRUE(s >= -1.0f && s <= 1.0f);
    b.sixty_fourths();
  }
  EXPECT_GT(seen.size(), 990u);
}

}  // namespace
}  // namespace zcuda::probe::ref
