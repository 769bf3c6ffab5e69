// A cuDNN (libcudnn.so.9 / cudnn64_9.dll) over fake_driver.cpp's host memory, implementing the
// calls of cudnn.create and cudnn.conv_forward. $ZCUDA_FAKE_CUDNN picks its behaviour:
//   right       computes the convolution correctly (its own loops, not the probe's reference)
//   wrong       writes 0.5 into every output: wrong numbers
//   no-backend  cudnnCreate answers 4000 (CUDNN_STATUS_INTERNAL_ERROR), as ZLUDA's cuDNN does
//               when it cannot load MIOpen
//   crash       cudnnConvolutionForward writes through a null pointer
// Built a second time with ZCUDA_FAKE_NEEDS_BACKEND, it links against fake_miopen, which the
// tests leave out: the loader then refuses it for a missing dependency.
#include <cstdlib>
#include <cstring>
#include <string>

#include "fake_export.hpp"

#ifdef ZCUDA_FAKE_NEEDS_BACKEND
extern "C" int zcuda_fake_miopen_create();
#endif

namespace {

struct Tensor {
  int n, c, h, w;
};
struct Convolution {
  int pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w;
};
struct AlgoPerf {
  int algo, status;
  float time;
  std::size_t memory;
  int determinism, math_type, reserved[3];
};

std::string mode() {
  const char* m = std::getenv("ZCUDA_FAKE_CUDNN");
  return m ? m : "right";
}

int handle_token;

}  // namespace

ZCUDA_EXPORT std::size_t cudnnGetVersion() { return 91400; }
ZCUDA_EXPORT int cudnnCreate(void** handle) {
#ifdef ZCUDA_FAKE_NEEDS_BACKEND
  if (zcuda_fake_miopen_create() != 0) return 4000;
#endif
  if (mode() == "no-backend") return 4000;
  *handle = &handle_token;
  return 0;
}
ZCUDA_EXPORT int cudnnDestroy(void*) { return 0; }
ZCUDA_EXPORT int cudnnCreateTensorDescriptor(void** d) { return *d = new Tensor{}, 0; }
ZCUDA_EXPORT int cudnnDestroyTensorDescriptor(void* d) { return delete static_cast<Tensor*>(d), 0; }
ZCUDA_EXPORT int cudnnSetTensor4dDescriptor(void* d, int format, int type, int n, int c, int h, int w) {
  if (format != 0 || type != 0) return 3000;  // NCHW FP32 only
  *static_cast<Tensor*>(d) = {n, c, h, w};
  return 0;
}
ZCUDA_EXPORT int cudnnCreateFilterDescriptor(void** d) { return *d = new Tensor{}, 0; }
ZCUDA_EXPORT int cudnnDestroyFilterDescriptor(void* d) { return delete static_cast<Tensor*>(d), 0; }
ZCUDA_EXPORT int cudnnSetFilter4dDescriptor(void* d, int type, int format, int k, int c, int r, int s) {
  if (format != 0 || type != 0) return 3000;
  *static_cast<Tensor*>(d) = {k, c, r, s};
  return 0;
}
ZCUDA_EXPORT int cudnnCreateConvolutionDescriptor(void** d) { return *d = new Convolution{}, 0; }
ZCUDA_EXPORT int cudnnDestroyConvolutionDescriptor(void* d) { return delete static_cast<Convolution*>(d), 0; }
ZCUDA_EXPORT int cudnnSetConvolution2dDescriptor(void* d, int ph, int pw, int sh, int sw, int dh, int dw, int mode_, int type) {
  if (mode_ != 1 || type != 0) return 3000;  // cross-correlation in FP32 only
  *static_cast<Convolution*>(d) = {ph, pw, sh, sw, dh, dw};
  return 0;
}
ZCUDA_EXPORT int cudnnSetConvolutionMathType(void*, int) { return 0; }
ZCUDA_EXPORT int cudnnGetConvolutionForwardAlgorithm_v7(void*, void*, void*, void*, void*, int requested, int* returned, AlgoPerf* perf) {
  if (requested < 1) return 2000;
  perf[0] = AlgoPerf{0, 0, 0.1f, 0, 1, 3, {0, 0, 0}};
  *returned = 1;
  return 0;
}
ZCUDA_EXPORT int cudnnGetConvolutionForwardWorkspaceSize(void*, void*, void*, void*, void*, int, std::size_t* size) {
  *size = 0;
  return 0;
}
ZCUDA_EXPORT int cudnnConvolutionForward(void*, const void* alpha, void* xd, const void* x, void* wd, const void* w, void* cd, int, void*,
                                         std::size_t, const void* beta, void* yd, void* y) {
  const auto& xs = *static_cast<const Tensor*>(xd);
  const auto& ws = *static_cast<const Tensor*>(wd);
  const auto& ys = *static_cast<const Tensor*>(yd);
  const auto& cv = *static_cast<const Convolution*>(cd);
  const auto* in = static_cast<const float*>(x);
  const auto* filter = static_cast<const float*>(w);
  auto* out = static_cast<float*>(y);
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  const std::string m = mode();
  if (m == "crash") {
    volatile float* nowhere = nullptr;
    *nowhere = 1.0f;
  }
  for (int n = 0; n < ys.n; ++n) {
    for (int k = 0; k < ys.c; ++k) {
      for (int p = 0; p < ys.h; ++p) {
        for (int q = 0; q < ys.w; ++q) {
          float sum = 0;
          for (int c = 0; c < xs.c; ++c) {
            for (int r = 0; r < ws.h; ++r) {
              for (int s = 0; s < ws.w; ++s) {
                const int ih = p * cv.stride_h - cv.pad_h + r * cv.dilation_h, iw = q * cv.stride_w - cv.pad_w + s * cv.dilation_w;
                if (ih < 0 || iw < 0 || ih >= xs.h || iw >= xs.w) continue;
                sum += in[((n * xs.c + c) * xs.h + ih) * xs.w + iw] * filter[((k * ws.c + c) * ws.h + r) * ws.w + s];
              }
            }
          }
          float& o = out[((n * ys.c + k) * ys.h + p) * ys.w + q];
          o = m == "wrong" ? 0.5f : a * sum + (b != 0.0f ? b * o : 0.0f);
        }
      }
    }
  }
  return 0;
}
