#pragma once
// CPU references for the cuDNN checks, in double precision: NCHW convolution (cross-correlation,
// as deep learning frameworks define it) forward and both backward passes, pooling, softmax and
// batch normalisation in training mode. Header-only, shared with the unit tests.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace zcuda::probe::ref {

namespace detail {
inline std::size_t u(int v) { return static_cast<std::size_t>(v); }
}  // namespace detail

// Input n×c×h×w, filters k×c×r×s; zero padding, stride and dilation per dimension.
struct ConvShape {
  int n = 1, c = 1, h = 1, w = 1;
  int k = 1, r = 1, s = 1;
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;

  int out_h() const { return (h + 2 * pad_h - dilation_h * (r - 1) - 1) / stride_h + 1; }
  int out_w() const { return (w + 2 * pad_w - dilation_w * (s - 1) - 1) / stride_w + 1; }
  std::size_t x_size() const { return detail::u(n) * detail::u(c) * detail::u(h) * detail::u(w); }
  std::size_t w_size() const { return detail::u(k) * detail::u(c) * detail::u(r) * detail::u(s); }
  std::size_t y_size() const { return detail::u(n) * detail::u(k) * detail::u(out_h()) * detail::u(out_w()); }
};

namespace detail {
// Visits every (output element, input element, filter element) triple the convolution pairs.
template <class Visit>
void for_each_tap(const ConvShape& g, Visit&& visit) {
  const int oh = g.out_h(), ow = g.out_w();
  for (int n = 0; n < g.n; ++n) {
    for (int k = 0; k < g.k; ++k) {
      for (int p = 0; p < oh; ++p) {
        for (int q = 0; q < ow; ++q) {
          const std::size_t yi = ((u(n) * u(g.k) + u(k)) * u(oh) + u(p)) * u(ow) + u(q);
          for (int c = 0; c < g.c; ++c) {
            for (int r = 0; r < g.r; ++r) {
              const int ih = p * g.stride_h - g.pad_h + r * g.dilation_h;
              if (ih < 0 || ih >= g.h) continue;
              for (int s = 0; s < g.s; ++s) {
                const int iw = q * g.stride_w - g.pad_w + s * g.dilation_w;
                if (iw < 0 || iw >= g.w) continue;
                const std::size_t xi = ((u(n) * u(g.c) + u(c)) * u(g.h) + u(ih)) * u(g.w) + u(iw);
                const std::size_t wi = ((u(k) * u(g.c) + u(c)) * u(g.r) + u(r)) * u(g.s) + u(s);
                visit(yi, xi, wi);
              }
            }
          }
        }
      }
    }
  }
}
}  // namespace detail

// y[n,k,p,q] = Σ x[n,c,p·stride−pad+r·dilation, …] · w[k,c,r,s]
inline std::vector<double> conv2d_forward(const ConvShape& g, std::span<const float> x, std::span<const float> w) {
  std::vector<double> y(g.y_size(), 0.0);
  detail::for_each_tap(g, [&](std::size_t yi, std::size_t xi, std::size_t wi) { y[yi] += static_cast<double>(x[xi]) * static_cast<double>(w[wi]); });
  return y;
}

// dx = the gradient of Σ dy·y with respect to x (the transposed convolution of dy).
inline std::vector<double> conv2d_backward_data(const ConvShape& g, std::span<const float> dy, std::span<const float> w) {
  std::vector<double> dx(g.x_size(), 0.0);
  detail::for_each_tap(g,
                       [&](std::size_t yi, std::size_t xi, std::size_t wi) { dx[xi] += static_cast<double>(dy[yi]) * static_cast<double>(w[wi]); });
  return dx;
}

// dw = the gradient of Σ dy·y with respect to w.
inline std::vector<double> conv2d_backward_filter(const ConvShape& g, std::span<const float> x, std::span<const float> dy) {
  std::vector<double> dw(g.w_size(), 0.0);
  detail::for_each_tap(g,
                       [&](std::size_t yi, std::size_t xi, std::size_t wi) { dw[wi] += static_cast<double>(dy[yi]) * static_cast<double>(x[xi]); });
  return dw;
}

struct PoolShape {
  int n = 1, c = 1, h = 1, w = 1;
  int window_h = 1, window_w = 1, pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;

  int out_h() const { return (h + 2 * pad_h - window_h) / stride_h + 1; }
  int out_w() const { return (w + 2 * pad_w - window_w) / stride_w + 1; }
  std::size_t x_size() const { return detail::u(n) * detail::u(c) * detail::u(h) * detail::u(w); }
  std::size_t y_size() const { return detail::u(n) * detail::u(c) * detail::u(out_h()) * detail::u(out_w()); }
};

// max = true: the largest input under the window, padding never chosen. max = false: the sum
// under the window divided by the whole window's size, padding counted as zeros
// (CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, PyTorch's avg_pool2d default).
inline std::vector<double> pool2d(const PoolShape& g, std::span<const float> x, bool max) {
  using detail::u;
  const int oh = g.out_h(), ow = g.out_w();
  std::vector<double> y(g.y_size());
  for (int nc = 0; nc < g.n * g.c; ++nc) {
    for (int p = 0; p < oh; ++p) {
      for (int q = 0; q < ow; ++q) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int i = 0; i < g.window_h; ++i) {
          const int ih = p * g.stride_h - g.pad_h + i;
          if (ih < 0 || ih >= g.h) continue;
          for (int j = 0; j < g.window_w; ++j) {
            const int iw = q * g.stride_w - g.pad_w + j;
            if (iw < 0 || iw >= g.w) continue;
            const double v = x[(u(nc) * u(g.h) + u(ih)) * u(g.w) + u(iw)];
            acc = max ? std::max(acc, v) : acc + v;
          }
        }
        y[(u(nc) * u(oh) + u(p)) * u(ow) + u(q)] = max ? acc : acc / (g.window_h * g.window_w);
      }
    }
  }
  return y;
}

// Softmax over the channels of each (n, h, w) position (CUDNN_SOFTMAX_MODE_CHANNEL); with `log`
// the logarithm of it (CUDNN_SOFTMAX_LOG).
inline std::vector<double> softmax_channels(int n, int c, int h, int w, std::span<const float> x, bool log) {
  using detail::u;
  std::vector<double> y(x.size());
  const std::size_t plane = u(h) * u(w);
  for (std::size_t b = 0; b < u(n); ++b) {
    for (std::size_t at = 0; at < plane; ++at) {
      auto index = [&](std::size_t ch) { return (b * u(c) + ch) * plane + at; };
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t ch = 0; ch < u(c); ++ch) top = std::max(top, static_cast<double>(x[index(ch)]));
      double sum = 0;
      for (std::size_t ch = 0; ch < u(c); ++ch) sum += std::exp(x[index(ch)] - top);
      for (std::size_t ch = 0; ch < u(c); ++ch) {
        const double shifted = x[index(ch)] - top;
        y[index(ch)] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  }
  return y;
}

struct BatchNormTraining {
  std::vector<double> y;             // n×c×h×w
  std::vector<double> mean;          // per channel, the batch mean (resultSaveMean)
  std::vector<double> inv_std;       // 1/sqrt(biased variance + epsilon) (resultSaveInvVariance)
  std::vector<double> running_mean;  // (1 − f)·old + f·mean
  std::vector<double> running_var;   // (1 − f)·old + f·unbiased variance (cuDNN uses N/(N−1))
};

// Spatial batch normalisation in training mode (CUDNN_BATCHNORM_SPATIAL): statistics per channel
// over n, h and w.
inline BatchNormTraining batchnorm_train(int n, int c, int h, int w, std::span<const float> x, std::span<const float> gamma,
                                         std::span<const float> beta, std::span<const float> running_mean, std::span<const float> running_var,
                                         double factor, double epsilon) {
  using detail::u;
  BatchNormTraining out;
  out.y.assign(x.size(), 0.0);  // assign, not resize: GCC 12 -O3 warns of a null dereference in resize here (a false positive)
  const std::size_t plane = u(h) * u(w);
  const double count = static_cast<double>(u(n) * plane);
  for (std::size_t ch = 0; ch < u(c); ++ch) {
    auto index = [&](std::size_t b, std::size_t at) { return (b * u(c) + ch) * plane + at; };
    double sum = 0;
    for (std::size_t b = 0; b < u(n); ++b) {
      for (std::size_t at = 0; at < plane; ++at) sum += x[index(b, at)];
    }
    const double mean = sum / count;
    double squares = 0;
    for (std::size_t b = 0; b < u(n); ++b) {
      for (std::size_t at = 0; at < plane; ++at) squares += (x[index(b, at)] - mean) * (x[index(b, at)] - mean);
    }
    const double variance = squares / count;
    const double inv_std = 1.0 / std::sqrt(variance + epsilon);
    for (std::size_t b = 0; b < u(n); ++b) {
      for (std::size_t at = 0; at < plane; ++at) out.y[index(b, at)] = gamma[ch] * (x[index(b, at)] - mean) * inv_std + beta[ch];
    }
    out.mean.push_back(mean);
    out.inv_std.push_back(inv_std);
    out.running_mean.push_back((1 - factor) * running_mean[ch] + factor * mean);
    out.running_var.push_back((1 - factor) * running_var[ch] + factor * squares / (count - 1));
  }
  return out;
}

}  // namespace zcuda::probe::ref
