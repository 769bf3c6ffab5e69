// cudnn.*: the legacy cuDNN API that cuDNN 8 and 9 both export and ZLUDA implements (over MIOpen):
// convolution forward and both backward passes with the algorithm chosen by cuDNN's own query,
// pooling, softmax, batch normalisation in training mode. NCHW FP32 against double-precision CPU
// references (src/probe/reference_dnn.hpp). A cuDNN that loads but cannot start its backend is
// `unsupported` (ZLUDA without MIOpen), an operation it does not implement too; only wrong
// numbers are `fail`.
#include <cstdint>
#include <cstdio>
#include <string>

#include "blas_common.hpp"
#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"
#include "reference_dnn.hpp"

namespace zcuda::probe {
namespace {

using Handle = void*;
using Destroy = int (*)(Handle);

// cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h constants (identical in cuDNN 8 and 9).
constexpr int kNchw = 0, kFloat = 0, kCrossCorrelation = 1, kFmaMath = 3;
constexpr int kTensorOpMath = 1, kTensorOpMathAllowConversion = 2;
constexpr int kPoolMax = 0, kPoolAverageIncludePadding = 1, kNotPropagateNan = 0;
constexpr int kSoftmaxAccurate = 1, kSoftmaxLog = 2, kSoftmaxModeChannel = 1;
constexpr int kBatchNormSpatial = 1;
constexpr std::size_t kMaxWorkspace = 256u << 20;

// The convolution every conv check runs: 2×4×11×11 input, six 4×3×3 filters, padding 1, stride
// 2, dilation 2, giving 2×6×5×5. Each output sums at most 36 products.
constexpr ref::ConvShape kConv{2, 4, 11, 11, 6, 3, 3, 1, 1, 2, 2, 2, 2};

// FP32 rounding over at most 54 products (backward data) is about 1e-7 relative; FFT and
// Winograd algorithms add error of order 1e-6. A wrong padding, stride, dilation or index
// gives errors of order 1.
constexpr double kConvTolerance = 1e-5;

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct AlgoPerf {
  int algo;
  int status;
  float time;
  std::size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};
static_assert(sizeof(AlgoPerf) == 48);

struct Cudnn {
  Library lib;
  Driver driver;
  Handle handle = nullptr;
  Destroy destroy = nullptr;
  Cudnn() = default;
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;
  ~Cudnn() {
    if (handle && destroy) destroy(handle);
  }
};

// cuDNN, then the driver (cuDNN works on the current context), then a handle. cudnnGetVersion is
// not called here: ZLUDA's panics, and the numbers do not depend on it (cudnn.create reports it).
void open_cudnn(Report& report, Cudnn& c) {
  c.lib = require_library(report, "cudnn");
  c.driver = open_driver(report);
  auto create = require_symbol<int (*)(Handle*)>(c.lib, "cudnnCreate");
  c.destroy = require_symbol<Destroy>(c.lib, "cudnnDestroy");
  const int rc = create(&c.handle);
  if (rc == 0) return;
  ApiError e{"cudnnCreate", rc, status_name(Api::cudnn, rc)};
  const std::string detail = "cudnnCreate returned " + std::to_string(rc) + " (" + e.name + ")";
  if (is_cudnn_backend_unavailable(rc)) {
    throw Stop{Status::unsupported,
               detail +
                   ": cuDNN loaded but could not start its backend (ZLUDA's cuDNN needs MIOpen, which the stable Windows HIP SDK "
                   "lacks; NVIDIA's needs its sub-libraries and a supported GPU); convolutions in PyTorch and other cuDNN users will fail",
               e};
  }
  throw Stop{Status::error, detail, e};
}

class Descriptor {
 public:
  explicit Descriptor(Destroy destroy) : destroy_(destroy) {}
  Descriptor(Descriptor&& other) noexcept : handle_(other.handle_), destroy_(other.destroy_) { other.handle_ = nullptr; }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (handle_) destroy_(handle_);
  }
  Handle* out() { return &handle_; }
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
  Destroy destroy_;
};

Descriptor tensor4d(const Cudnn& c, int n, int ch, int h, int w) {
  Descriptor d(require_symbol<Destroy>(c.lib, "cudnnDestroyTensorDescriptor"));
  check_status(Api::cudnn, "cudnnCreateTensorDescriptor", require_symbol<int (*)(Handle*)>(c.lib, "cudnnCreateTensorDescriptor")(d.out()));
  auto set = require_symbol<int (*)(Handle, int, int, int, int, int, int)>(c.lib, "cudnnSetTensor4dDescriptor");
  check_status(Api::cudnn, "cudnnSetTensor4dDescriptor", set(d.get(), kNchw, kFloat, n, ch, h, w));
  return d;
}

Descriptor filter4d(const Cudnn& c, const ref::ConvShape& g) {
  Descriptor d(require_symbol<Destroy>(c.lib, "cudnnDestroyFilterDescriptor"));
  check_status(Api::cudnn, "cudnnCreateFilterDescriptor", require_symbol<int (*)(Handle*)>(c.lib, "cudnnCreateFilterDescriptor")(d.out()));
  auto set = require_symbol<int (*)(Handle, int, int, int, int, int, int)>(c.lib, "cudnnSetFilter4dDescriptor");
  check_status(Api::cudnn, "cudnnSetFilter4dDescriptor", set(d.get(), kFloat, kNchw, g.k, g.c, g.r, g.s));
  return d;
}

// Cross-correlation (what frameworks call convolution) with FMA math: what PyTorch asks for when
// torch.backends.cudnn.allow_tf32 is off, so the FP32 bound applies.
Descriptor convolution(const Cudnn& c, const ref::ConvShape& g) {
  Descriptor d(require_symbol<Destroy>(c.lib, "cudnnDestroyConvolutionDescriptor"));
  check_status(Api::cudnn, "cudnnCreateConvolutionDescriptor", require_symbol<int (*)(Handle*)>(c.lib, "cudnnCreateConvolutionDescriptor")(d.out()));
  auto set = require_symbol<int (*)(Handle, int, int, int, int, int, int, int, int)>(c.lib, "cudnnSetConvolution2dDescriptor");
  check_status(Api::cudnn, "cudnnSetConvolution2dDescriptor",
               set(d.get(), g.pad_h, g.pad_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, kCrossCorrelation, kFloat));
  auto math = require_symbol<int (*)(Handle, int)>(c.lib, "cudnnSetConvolutionMathType");
  check_status(Api::cudnn, "cudnnSetConvolutionMathType", math(d.get(), kFmaMath));
  return d;
}

// The first algorithm cuDNN's query ranks that it says works, without tensor-op math, within
// the workspace budget.
AlgoPerf choose_algorithm(Report& report, const char* query, const AlgoPerf* perf, int returned) {
  for (int i = 0; i < returned; ++i) {
    const auto& p = perf[i];
    if (p.status == 0 && p.math_type != kTensorOpMath && p.math_type != kTensorOpMathAllowConversion && p.memory <= kMaxWorkspace) {
      report.metrics.integer("algorithm", p.algo)
          .integer("algorithm_math_type", p.math_type)
          .integer("workspace_bytes", static_cast<long long>(p.memory))
          .integer("algorithms_offered", returned);
      return p;
    }
  }
  throw Stop{Status::error, std::string(query) + " offered " + std::to_string(returned) + " algorithm(s), none usable for FP32 with FMA math",
             std::nullopt};
}

std::vector<float> symmetric(std::size_t count, std::uint64_t seed) { return random_symmetric(count, seed); }

std::string algorithm_note(const AlgoPerf& p) { return ", algorithm " + std::to_string(p.algo) + " from cuDNN's query"; }

}  // namespace

void check_cudnn_create(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  check_status(Api::cudnn, "cudnnDestroy", c.destroy(c.handle));
  c.handle = nullptr;
  // After the handle: an application (PyTorch checks it before its first convolution) calls it
  // too, and a library that crashes in it is a crash for them as well.
  auto get_version = require_symbol<std::size_t (*)()>(c.lib, "cudnnGetVersion");
  const auto version = static_cast<long long>(get_version());
  // cuDNN 9 encodes 10000·major + 100·minor + patch, cuDNN 8 1000·major + 100·minor + patch.
  const long long major = version >= 10000 ? version / 10000 : version / 1000;
  const long long minor = version >= 10000 ? (version % 10000) / 100 : (version % 1000) / 100;
  const long long patch = version % 100;
  const std::string text_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  report.metrics.integer("cudnn_version", version).str("cudnn_version_text", text_version);
  report.status = Status::pass;
  report.detail = "cuDNN " + text_version + ": handle created and destroyed";
}

void check_cudnn_conv_forward(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  const auto& g = kConv;
  auto query = require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, int*, AlgoPerf*)>(c.lib, "cudnnGetConvolutionForwardAlgorithm_v7");
  auto workspace_size =
      require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, std::size_t*)>(c.lib, "cudnnGetConvolutionForwardWorkspaceSize");
  auto forward = require_symbol<int (*)(Handle, const void*, Handle, const void*, Handle, const void*, Handle, int, void*, std::size_t, const void*,
                                        Handle, void*)>(c.lib, "cudnnConvolutionForward");
  const auto xd = tensor4d(c, g.n, g.c, g.h, g.w), yd = tensor4d(c, g.n, g.k, g.out_h(), g.out_w());
  const auto wd = filter4d(c, g);
  const auto cd = convolution(c, g);
  AlgoPerf perf[8] = {};
  int returned = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionForwardAlgorithm_v7", query(c.handle, xd.get(), wd.get(), cd.get(), yd.get(), 8, &returned, perf));
  const auto algo = choose_algorithm(report, "cudnnGetConvolutionForwardAlgorithm_v7", perf, returned);
  std::size_t ws = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionForwardWorkspaceSize",
               workspace_size(c.handle, xd.get(), wd.get(), cd.get(), yd.get(), algo.algo, &ws));

  const auto x = symmetric(g.x_size(), 151), w = symmetric(g.w_size(), 152);
  const Driver& d = c.driver;
  DeviceBuffer dx(d, bytes(x)), dw(d, bytes(w)), dy(d, g.y_size() * 4), work(d, ws > 0 ? ws : 1);
  dx.upload(std::span<const float>(x));
  dw.upload(std::span<const float>(w));
  const float alpha = 1.0f, beta = 0.0f;
  check_status(Api::cudnn, "cudnnConvolutionForward",
               forward(c.handle, &alpha, xd.get(), dx.as_pointer(), wd.get(), dw.as_pointer(), cd.get(), algo.algo, work.as_pointer(), ws, &beta,
                       yd.get(), dy.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = dy.download<float>(g.y_size());
  const auto expected = ref::conv2d_forward(g, x, w);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "x 2x4x11x11, w 6x4x3x3, pad 1, stride 2, dilation 2 -> 2x6x5x5")
      .num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "NCHW FP32 convolution, pad 1, stride 2, dilation 2" + algorithm_note(algo), error, kConvTolerance);
}

void check_cudnn_conv_backward_data(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  const auto& g = kConv;
  auto query =
      require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, int*, AlgoPerf*)>(c.lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  auto workspace_size =
      require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, std::size_t*)>(c.lib, "cudnnGetConvolutionBackwardDataWorkspaceSize");
  auto backward = require_symbol<int (*)(Handle, const void*, Handle, const void*, Handle, const void*, Handle, int, void*, std::size_t, const void*,
                                         Handle, void*)>(c.lib, "cudnnConvolutionBackwardData");
  const auto xd = tensor4d(c, g.n, g.c, g.h, g.w), yd = tensor4d(c, g.n, g.k, g.out_h(), g.out_w());
  const auto wd = filter4d(c, g);
  const auto cd = convolution(c, g);
  AlgoPerf perf[8] = {};
  int returned = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
               query(c.handle, wd.get(), yd.get(), cd.get(), xd.get(), 6, &returned, perf));
  const auto algo = choose_algorithm(report, "cudnnGetConvolutionBackwardDataAlgorithm_v7", perf, returned);
  std::size_t ws = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionBackwardDataWorkspaceSize",
               workspace_size(c.handle, wd.get(), yd.get(), cd.get(), xd.get(), algo.algo, &ws));

  const auto w = symmetric(g.w_size(), 152), dy = symmetric(g.y_size(), 153);
  const Driver& d = c.driver;
  DeviceBuffer dw(d, bytes(w)), ddy(d, bytes(dy)), ddx(d, g.x_size() * 4), work(d, ws > 0 ? ws : 1);
  dw.upload(std::span<const float>(w));
  ddy.upload(std::span<const float>(dy));
  const float alpha = 1.0f, beta = 0.0f;
  check_status(Api::cudnn, "cudnnConvolutionBackwardData",
               backward(c.handle, &alpha, wd.get(), dw.as_pointer(), yd.get(), ddy.as_pointer(), cd.get(), algo.algo, work.as_pointer(), ws, &beta,
                        xd.get(), ddx.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = ddx.download<float>(g.x_size());
  const auto expected = ref::conv2d_backward_data(g, dy, w);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "dy 2x6x5x5, w 6x4x3x3 -> dx 2x4x11x11")
      .num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "gradient of the input, pad 1, stride 2, dilation 2" + algorithm_note(algo), error, kConvTolerance);
}

void check_cudnn_conv_backward_filter(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  const auto& g = kConv;
  auto query =
      require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, int*, AlgoPerf*)>(c.lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  auto workspace_size =
      require_symbol<int (*)(Handle, Handle, Handle, Handle, Handle, int, std::size_t*)>(c.lib, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  auto backward = require_symbol<int (*)(Handle, const void*, Handle, const void*, Handle, const void*, Handle, int, void*, std::size_t, const void*,
                                         Handle, void*)>(c.lib, "cudnnConvolutionBackwardFilter");
  const auto xd = tensor4d(c, g.n, g.c, g.h, g.w), yd = tensor4d(c, g.n, g.k, g.out_h(), g.out_w());
  const auto wd = filter4d(c, g);
  const auto cd = convolution(c, g);
  AlgoPerf perf[8] = {};
  int returned = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
               query(c.handle, xd.get(), yd.get(), cd.get(), wd.get(), 7, &returned, perf));
  const auto algo = choose_algorithm(report, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", perf, returned);
  std::size_t ws = 0;
  check_status(Api::cudnn, "cudnnGetConvolutionBackwardFilterWorkspaceSize",
               workspace_size(c.handle, xd.get(), yd.get(), cd.get(), wd.get(), algo.algo, &ws));

  const auto x = symmetric(g.x_size(), 151), dy = symmetric(g.y_size(), 153);
  const Driver& d = c.driver;
  DeviceBuffer dx(d, bytes(x)), ddy(d, bytes(dy)), ddw(d, g.w_size() * 4), work(d, ws > 0 ? ws : 1);
  dx.upload(std::span<const float>(x));
  ddy.upload(std::span<const float>(dy));
  const float alpha = 1.0f, beta = 0.0f;
  check_status(Api::cudnn, "cudnnConvolutionBackwardFilter",
               backward(c.handle, &alpha, xd.get(), dx.as_pointer(), yd.get(), ddy.as_pointer(), cd.get(), algo.algo, work.as_pointer(), ws, &beta,
                        wd.get(), ddw.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = ddw.download<float>(g.w_size());
  const auto expected = ref::conv2d_backward_filter(g, x, dy);
  const double error = ref::rel_l2(std::span<const double>(expected), std::span<const float>(got));
  report.metrics.str("shape", "x 2x4x11x11, dy 2x6x5x5 -> dw 6x4x3x3")
      .num("max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(got)));
  pass_if_within(report, "gradient of the filters, pad 1, stride 2, dilation 2" + algorithm_note(algo), error, kConvTolerance);
}

void check_cudnn_pooling(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  auto create = require_symbol<int (*)(Handle*)>(c.lib, "cudnnCreatePoolingDescriptor");
  auto destroy = require_symbol<Destroy>(c.lib, "cudnnDestroyPoolingDescriptor");
  auto set = require_symbol<int (*)(Handle, int, int, int, int, int, int, int, int)>(c.lib, "cudnnSetPooling2dDescriptor");
  auto forward = require_symbol<int (*)(Handle, Handle, const void*, Handle, const void*, const void*, Handle, void*)>(c.lib, "cudnnPoolingForward");
  // ResNet's stem pooling: 3×3 windows, stride 2, padding 1.
  const ref::PoolShape g{2, 3, 11, 11, 3, 3, 1, 1, 2, 2};
  const auto xd = tensor4d(c, g.n, g.c, g.h, g.w), yd = tensor4d(c, g.n, g.c, g.out_h(), g.out_w());
  const auto x = symmetric(static_cast<std::size_t>(g.n) * 3 * 11 * 11, 161);
  const Driver& d = c.driver;
  DeviceBuffer dx(d, bytes(x)), dy(d, g.y_size() * 4);
  dx.upload(std::span<const float>(x));
  auto run = [&](int mode) {
    Descriptor pd(destroy);
    check_status(Api::cudnn, "cudnnCreatePoolingDescriptor", create(pd.out()));
    check_status(Api::cudnn, "cudnnSetPooling2dDescriptor",
                 set(pd.get(), mode, kNotPropagateNan, g.window_h, g.window_w, g.pad_h, g.pad_w, g.stride_h, g.stride_w));
    const float alpha = 1.0f, beta = 0.0f;
    check_status(Api::cudnn, "cudnnPoolingForward", forward(c.handle, pd.get(), &alpha, xd.get(), dx.as_pointer(), &beta, yd.get(), dy.as_pointer()));
    check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
    return dy.download<float>(g.y_size());
  };
  // The maximum is one of the inputs: exact. The average of 9 values is FP32-rounded: 1e-6.
  const auto max_got = run(kPoolMax);
  const auto max_expected = ref::pool2d(g, x, true);
  const double max_error = ref::max_abs_error(std::span<const double>(max_expected), std::span<const float>(max_got));
  const auto avg_got = run(kPoolAverageIncludePadding);
  const auto avg_expected = ref::pool2d(g, x, false);
  const double avg_error = ref::rel_l2(std::span<const double>(avg_expected), std::span<const float>(avg_got));
  report.metrics.str("shape", "2x3x11x11, 3x3 windows, stride 2, pad 1 -> 2x3x6x6");
  require_within(report, "max_pool_max_abs_error", max_error, 0.0);
  require_within(report, "average_pool_rel_l2_error", avg_error, 1e-6);
  char text[220];
  std::snprintf(text, sizeof text,
                "3×3 stride 2 pad 1: max pooling exact; average pooling (padding counted) relative L2 error %.3g (tolerance 1e-06)", avg_error);
  report.status = Status::pass;
  report.detail = text;
}

void check_cudnn_softmax(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  auto softmax =
      require_symbol<int (*)(Handle, int, int, const void*, Handle, const void*, const void*, Handle, void*)>(c.lib, "cudnnSoftmaxForward");
  constexpr int n = 2, ch = 10, h = 4, w = 4;
  const auto xd = tensor4d(c, n, ch, h, w);
  auto x = symmetric(std::size_t{n} * ch * h * w, 171);
  for (auto& v : x) v *= 4.0f;  // logits in [-4, 4): probabilities from about 1e-4 to 0.9
  const Driver& d = c.driver;
  DeviceBuffer dx(d, bytes(x)), dy(d, bytes(x));
  dx.upload(std::span<const float>(x));
  auto run = [&](int algo) {
    const float alpha = 1.0f, beta = 0.0f;
    check_status(Api::cudnn, "cudnnSoftmaxForward",
                 softmax(c.handle, algo, kSoftmaxModeChannel, &alpha, xd.get(), dx.as_pointer(), &beta, xd.get(), dy.as_pointer()));
    check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
    return dy.download<float>(x.size());
  };
  // exp and log in FP32 are accurate to a few ulp (1e-6 relative); 1e-5 leaves room, while a
  // softmax over the wrong axis or without the normalisation is off by tens of percent.
  constexpr double kTolerance = 1e-5;
  const auto accurate = run(kSoftmaxAccurate);
  const double accurate_error = ref::rel_l2(std::span<const double>(ref::softmax_channels(n, ch, h, w, x, false)), std::span<const float>(accurate));
  const auto log = run(kSoftmaxLog);
  const double log_error = ref::rel_l2(std::span<const double>(ref::softmax_channels(n, ch, h, w, x, true)), std::span<const float>(log));
  report.metrics.str("shape", "2x10x4x4, over the 10 channels");
  require_within(report, "softmax_rel_l2_error", accurate_error, kTolerance);
  require_within(report, "log_softmax_rel_l2_error", log_error, kTolerance);
  char text[200];
  std::snprintf(text, sizeof text, "softmax over channels %.3g, log-softmax %.3g relative L2 error (tolerance %.3g)", accurate_error, log_error,
                kTolerance);
  report.status = Status::pass;
  report.detail = text;
}

void check_cudnn_batchnorm_train(Report& report) {
  Cudnn c;
  open_cudnn(report, c);
  auto train = require_symbol<int (*)(Handle, int, const void*, const void*, Handle, const void*, Handle, void*, Handle, const void*, const void*,
                                      double, void*, void*, double, void*, void*)>(c.lib, "cudnnBatchNormalizationForwardTraining");
  constexpr int n = 4, ch = 3, h = 6, w = 6;
  constexpr double kFactor = 0.25, kEpsilon = 1e-5;
  const auto xd = tensor4d(c, n, ch, h, w), bd = tensor4d(c, 1, ch, 1, 1);
  auto x = symmetric(std::size_t{n} * ch * h * w, 181);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 2.0f * x[i] + static_cast<float>((i / (h * w)) % ch);  // a different mean per channel
  const std::vector<float> gamma{1.5f, 0.5f, -1.0f}, beta{0.25f, -0.5f, 1.0f}, running_mean{0.1f, -0.2f, 0.3f}, running_var{1.0f, 2.0f, 0.5f};
  const Driver& d = c.driver;
  DeviceBuffer dx(d, bytes(x)), dy(d, bytes(x)), dgamma(d, 12), dbeta(d, 12), dmean(d, 12), dvar(d, 12), dsave_mean(d, 12), dsave_inv(d, 12);
  dx.upload(std::span<const float>(x));
  dgamma.upload(std::span<const float>(gamma));
  dbeta.upload(std::span<const float>(beta));
  dmean.upload(std::span<const float>(running_mean));
  dvar.upload(std::span<const float>(running_var));
  const float alpha = 1.0f, blend = 0.0f;
  check_status(Api::cudnn, "cudnnBatchNormalizationForwardTraining",
               train(c.handle, kBatchNormSpatial, &alpha, &blend, xd.get(), dx.as_pointer(), xd.get(), dy.as_pointer(), bd.get(), dgamma.as_pointer(),
                     dbeta.as_pointer(), kFactor, dmean.as_pointer(), dvar.as_pointer(), kEpsilon, dsave_mean.as_pointer(), dsave_inv.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto expected = ref::batchnorm_train(n, ch, h, w, x, gamma, beta, running_mean, running_var, kFactor, kEpsilon);
  // Sums over 144 values per channel and a reciprocal square root: FP32 rounding ~1e-6.
  constexpr double kTolerance = 1e-5;
  auto error = [](const std::vector<double>& want, const DeviceBuffer& buffer) {
    const auto got = buffer.download<float>(want.size());
    return ref::rel_l2(std::span<const double>(want), std::span<const float>(got));
  };
  report.metrics.str("shape", "4x3x6x6, spatial, factor 0.25, epsilon 1e-5");
  require_within(report, "output_rel_l2_error", error(expected.y, dy), kTolerance);
  require_within(report, "saved_mean_rel_l2_error", error(expected.mean, dsave_mean), kTolerance);
  require_within(report, "saved_inv_std_rel_l2_error", error(expected.inv_std, dsave_inv), kTolerance);
  require_within(report, "running_mean_rel_l2_error", error(expected.running_mean, dmean), kTolerance);
  // cuDNN (and PyTorch, which relies on it) moves the running variance with the unbiased
  // batch variance, N/(N−1) times the biased one used to normalise.
  require_within(report, "running_var_rel_l2_error", error(expected.running_var, dvar), kTolerance);
  report.status = Status::pass;
  report.detail = "training-mode batch normalisation: output, saved mean and inverse deviation, running mean and (unbiased) variance within 1e-05";
}

}  // namespace zcuda::probe
