// The cuDNN checks' CPU references against values worked out by hand, and the identities that tie
// the backward passes to the forward one.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "reference.hpp"
#include "reference_dnn.hpp"

namespace zcuda::probe::ref {
namespace {

std::vector<float> iota_floats(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

TEST(ReferenceDnn, ConvolutionOfAPlainCase) {
  // 3×3 input 1..9, one 2×2 filter [1 0; 0 1]: each output adds an element and its lower-right neighbour.
  const ConvShape g{1, 1, 3, 3, 1, 2, 2, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(conv2d_forward(g, iota_floats(9), std::vector<float>{1, 0, 0, 1}), (std::vector<double>{6, 8, 12, 14}));
}

TEST(ReferenceDnn, ConvolutionWithPaddingStrideAndDilation) {
  // 4×4 input 1..16, a 2×2 filter of ones, padding 1, stride 2, dilation 2: output 2×2, each
  // summing the input at rows/columns {2p−1, 2p+1} that fall inside the image.
  const ConvShape g{1, 1, 4, 4, 1, 2, 2, 1, 1, 2, 2, 2, 2};
  ASSERT_EQ(g.out_h(), 2);
  ASSERT_EQ(g.out_w(), 2);
  // (0,0): x[1][1] = 6; (0,1): x[1][1] + x[1][3] = 14; (1,0): x[1][1] + x[3][1] = 20; (1,1): 6+8+14+16.
  EXPECT_EQ(conv2d_forward(g, iota_floats(16), std::vector<float>(4, 1.0f)), (std::vector<double>{6, 14, 20, 44}));
}

TEST(ReferenceDnn, ChannelsAndFiltersIndexNchw) {
  // Two input channels, two filters of 1×1: filter k = [k+1, 10·(k+1)] mixes the channels.
  const ConvShape g{1, 2, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 1};
  const std::vector<float> x{1, 2, 3, 4};  // channel 0: 1 2; channel 1: 3 4
  const std::vector<float> w{1, 10, 2, 20};
  EXPECT_EQ(conv2d_forward(g, x, w), (std::vector<double>{31, 42, 62, 84}));
}

TEST(ReferenceDnn, BackwardPassesAreTheAdjointsOfTheForwardPass) {
  // <dy, conv(x, w)> = <backward_data(dy, w), x> = <backward_filter(x, dy), w> for any data: the
  // definition of both gradients, on the shape the checks use.
  const ConvShape g{2, 4, 11, 11, 6, 3, 3, 1, 1, 2, 2, 2, 2};
  Lcg rng(5);
  auto fill = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& e : v) e = rng.symmetric();
    return v;
  };
  const auto x = fill(g.x_size()), w = fill(g.w_size()), dy = fill(g.y_size());
  auto dot = [](const std::vector<double>& a, const std::vector<float>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  const double forward = dot(conv2d_forward(g, x, w), dy);
  EXPECT_NEAR(dot(conv2d_backward_data(g, dy, w), x), forward, 1e-9 * std::fabs(forward) + 1e-12);
  EXPECT_NEAR(dot(conv2d_backward_filter(g, x, dy), w), forward, 1e-9 * std::fabs(forward) + 1e-12);
  EXPECT_GT(std::fabs(forward), 1.0) << "a non-trivial case";
}

TEST(ReferenceDnn, BackwardDataByHand) {
  // The plain case's transpose: dy = [1 0; 0 0] on filter [1 0; 0 1] lands on x[0][0] and x[1][1].
  const ConvShape g{1, 1, 3, 3, 1, 2, 2, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(conv2d_backward_data(g, std::vector<float>{1, 0, 0, 0}, std::vector<float>{1, 0, 0, 1}),
            (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 0}));
  // dw[r][s] = Σ dy[p][q]·x[p+r][q+s]; with dy all ones: sums of 2×2 blocks of 1..9.
  EXPECT_EQ(conv2d_backward_filter(g, iota_floats(9), std::vector<float>(4, 1.0f)), (std::vector<double>{12, 16, 24, 28}));
}

TEST(ReferenceDnn, PoolingWithPaddingByHand) {
  // 4×4 input 1..16, 3×3 windows, stride 2, padding 1: output 2×2.
  const PoolShape g{1, 1, 4, 4, 3, 3, 1, 1, 2, 2};
  EXPECT_EQ(pool2d(g, iota_floats(16), true), (std::vector<double>{6, 8, 14, 16}));
  // Average over the full 9-element window, padding counted: sums 14, 30, 57, 99.
  const auto avg = pool2d(g, iota_floats(16), false);
  EXPECT_DOUBLE_EQ(avg[0], 14.0 / 9);
  EXPECT_DOUBLE_EQ(avg[1], 30.0 / 9);
  EXPECT_DOUBLE_EQ(avg[2], 57.0 / 9);
  EXPECT_DOUBLE_EQ(avg[3], 11.0);
}

TEST(ReferenceDnn, MaxPoolingNeverPicksPadding) {
  const PoolShape g{1, 1, 2, 2, 3, 3, 1, 1, 2, 2};
  EXPECT_EQ(pool2d(g, std::vector<float>{-4, -3, -2, -1}, true), (std::vector<double>{-1}));
}

TEST(ReferenceDnn, SoftmaxOverChannels) {
  // Two channels at two positions: (0, ln 3) and (2, 2).
  const std::vector<float> x{0.0f, 2.0f, static_cast<float>(std::log(3.0)), 2.0f};
  const auto y = softmax_channels(1, 2, 1, 2, x, false);
  EXPECT_NEAR(y[0], 0.25, 1e-7);
  EXPECT_NEAR(y[2], 0.75, 1e-7);
  EXPECT_DOUBLE_EQ(y[1], 0.5);
  EXPECT_DOUBLE_EQ(y[3], 0.5);
  const auto logs = softmax_channels(1, 2, 1, 2, x, true);
  EXPECT_NEAR(logs[0], std::log(0.25), 1e-7);
  EXPECT_NEAR(logs[3], std::log(0.5), 1e-15);
  // Large logits do not overflow: the maximum is subtracted first.
  const auto big = softmax_channels(1, 2, 1, 1, std::vector<float>{1000.0f, 1000.0f}, false);
  EXPECT_DOUBLE_EQ(big[0], 0.5);
}

TEST(ReferenceDnn, BatchNormTrainingByHand) {
  // One channel of 1, 2, 3, 4: mean 2.5, biased variance 1.25, unbiased 5/3.
  const std::vector<float> x{1, 2, 3, 4}, gamma{2}, beta{1}, mean0{1}, var0{1};
  const auto r = batchnorm_train(1, 1, 1, 4, x, gamma, beta, mean0, var0, 0.5, 0.0);
  EXPECT_DOUBLE_EQ(r.mean[0], 2.5);
  EXPECT_DOUBLE_EQ(r.inv_std[0], 1.0 / std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(r.y[0], 2.0 * (1 - 2.5) / std::sqrt(1.25) + 1);
  EXPECT_DOUBLE_EQ(r.y[3], 2.0 * (4 - 2.5) / std::sqrt(1.25) + 1);
  EXPECT_DOUBLE_EQ(r.running_mean[0], 0.5 * 1 + 0.5 * 2.5);
  EXPECT_DOUBLE_EQ(r.running_var[0], 0.5 * 1 + 0.5 * 5.0 / 3.0);
}

TEST(ReferenceDnn, BatchNormStatisticsArePerChannel) {
  // Channel 0 holds 0 and 2, channel 1 holds 10 and 30, over a batch of 2 single pixels.
  const std::vector<float> x{0, 10, 2, 30}, ones{1, 1}, zeros{0, 0};
  const auto r = batchnorm_train(2, 2, 1, 1, x, ones, zeros, zeros, ones, 1.0, 0.0);
  EXPECT_EQ(r.mean, (std::vector<double>{1, 20}));
  const std::vector<double> normalised{-1, -1, 1, 1};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(r.y[i], normalised[i], 1e-15) << i;
  EXPECT_EQ(r.running_var, (std::vector<double>{2, 200}));  // unbiased: 2/(2−1), 200/(2−1)
}

}  // namespace
}  // namespace zcuda::probe::ref
