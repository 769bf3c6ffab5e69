// The cuSOLVER checks' CPU side: LAPACK's test ratios, Householder reconstruction and the Jacobi
// eigenvalue solver, against cases worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "reference.hpp"
#include "reference_linalg.hpp"

namespace zcuda::probe::ref {
namespace {

TEST(ReferenceLinalg, SolveRatioIsZeroForTheExactSolutionAndLargeForAWrongOne) {
  // A = [2 1; 1 3], x = [1; 2] gives b = [4; 7].
  const auto a = Matrix::from<double>(2, 2, std::vector<double>{2, 1, 1, 3});
  const auto b = Matrix::from<double>(2, 1, std::vector<double>{4, 7});
  EXPECT_EQ(solve_ratio(a, Matrix::from<double>(2, 1, std::vector<double>{1, 2}), b), 0.0);
  // Off in the last float bit: a ratio of order 1, far under the threshold.
  const double nudged = solve_ratio(a, Matrix::from<double>(2, 1, std::vector<double>{1, 2 + 0x1p-22}), b);
  EXPECT_GT(nudged, 0.1);
  EXPECT_LT(nudged, kLapackThreshold);
  // A visibly wrong solution: far above it.
  EXPECT_GT(solve_ratio(a, Matrix::from<double>(2, 1, std::vector<double>{1, 2.001}), b), 1e3);
  EXPECT_TRUE(std::isinf(solve_ratio(a, Matrix::from<double>(2, 1, std::vector<double>{NAN, 2}), b)));
}

TEST(ReferenceLinalg, Norm1IsTheLargestColumnSum) { EXPECT_EQ(norm1(Matrix::from<double>(2, 2, std::vector<double>{1, -2, 3, 4})), 7.0); }

TEST(ReferenceLinalg, HouseholderQrOfAVectorByHand) {
  // geqrf of [3; 4]: β = −5, τ = (β − 3)/β = 1.6, v = [1; 4/(3 − β)] = [1; 0.5], R = −5.
  const auto a = Matrix::from<double>(2, 1, std::vector<double>{3, 4});
  const auto factored = Matrix::from<double>(2, 1, std::vector<double>{-5, 0.5});
  const std::vector<double> tau{1.6};
  const auto q = householder_q(factored, tau);
  EXPECT_NEAR(q(0, 0), -0.6, 1e-15);
  EXPECT_NEAR(q(1, 0), -0.8, 1e-15);
  EXPECT_NEAR(q(0, 1), -0.8, 1e-15);
  EXPECT_NEAR(q(1, 1), 0.6, 1e-15);
  const auto ratios = qr_ratios(a, factored, tau);
  EXPECT_LT(ratios.factorization, 1.0);
  EXPECT_LT(ratios.orthogonality, 1.0);
  // A wrong τ breaks both.
  const std::vector<double> wrong{1.5};
  const auto bad = qr_ratios(a, factored, wrong);
  EXPECT_GT(bad.factorization, kLapackThreshold);
  EXPECT_GT(bad.orthogonality, kLapackThreshold);
}

TEST(ReferenceLinalg, EigenRatiosOfAKnownDecomposition) {
  // [2 1; 1 2] = V·diag(1, 3)·Vᵀ with V = [1 1; −1 1]/√2.
  const auto a = Matrix::from<double>(2, 2, std::vector<double>{2, 1, 1, 2});
  const double h = 1 / std::sqrt(2.0);
  const auto v = Matrix::from<double>(2, 2, std::vector<double>{h, -h, h, h});
  const std::vector<double> values{1, 3};
  const auto r = eigen_ratios(a, v, values);
  EXPECT_LT(r.decomposition, 1.0);
  EXPECT_LT(r.orthogonality, 1.0);
  const std::vector<double> swapped{3, 1};
  EXPECT_GT(eigen_ratios(a, v, swapped).decomposition, kLapackThreshold);
}

TEST(ReferenceLinalg, JacobiEigenvaluesAscending) {
  EXPECT_EQ(symmetric_eigenvalues(Matrix::from<double>(2, 2, std::vector<double>{2, 1, 1, 2})).size(), 2u);
  const auto two = symmetric_eigenvalues(Matrix::from<double>(2, 2, std::vector<double>{2, 1, 1, 2}));
  EXPECT_NEAR(two[0], 1.0, 1e-14);
  EXPECT_NEAR(two[1], 3.0, 1e-14);
  // Tridiagonal [2 −1 0; −1 2 −1; 0 −1 2]: 2 − √2, 2, 2 + √2.
  const auto three = symmetric_eigenvalues(Matrix::from<double>(3, 3, std::vector<double>{2, -1, 0, -1, 2, -1, 0, -1, 2}));
  EXPECT_NEAR(three[0], 2 - std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(three[1], 2.0, 1e-14);
  EXPECT_NEAR(three[2], 2 + std::sqrt(2.0), 1e-14);
}

TEST(ReferenceLinalg, JacobiAgreesWithTheTraceAndDeterminantOfARandomMatrix) {
  constexpr std::size_t n = 48;
  Lcg rng(141);
  Matrix a(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i <= j; ++i) a(i, j) = a(j, i) = rng.symmetric();
  }
  const auto values = symmetric_eigenvalues(a);
  double trace = 0, sum = 0, frob = 0, squares = 0;
  for (std::size_t i = 0; i < n; ++i) trace += a(i, i);
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  for (double v : a.data) frob += v * v;
  EXPECT_NEAR(sum, trace, 1e-11);
  EXPECT_NEAR(squares, frob, 1e-10);
  for (std::size_t i = 1; i < n; ++i) EXPECT_LE(values[i - 1], values[i]);
}

}  // namespace
}  // namespace zcuda::probe::ref
