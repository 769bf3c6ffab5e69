#pragma once
// The file names a CUDA program loads CUDA libraries by, and ZLUDA's driver library, per OS.
#include <string_view>

#include <zcuda/platform/os.hpp>

namespace zcuda::family {

// `lower` is a lowercase file name.
inline bool is_driver_name(std::string_view lower, platform::Os os) {
  if (os == platform::Os::windows) return lower == "nvcuda.dll";
  return lower == "libcuda.so" || lower.starts_with("libcuda.so.") || lower == "libnvcuda.so";
}

// nvcuda, cuBLAS(Lt), cuSPARSE, cuFFT(W), NVRTC, cuDNN, CUDART, NCCL and NVML in every spelling
// both families and NVIDIA use (cublas64_11.dll, cublas.dll, libcublas.so.12, ...).
inline bool is_cuda_library_name(std::string_view lower, platform::Os os) {
  constexpr std::string_view kStems[] = {"nvcuda", "cublas", "cusparse", "cufft", "nvrtc", "cudnn", "cudart", "nccl", "nvml", "cuda", "nvidia-ml"};
  if (os == platform::Os::windows) {
    if (!lower.ends_with(".dll")) return false;
  } else {
    if (!lower.starts_with("lib") || lower.find(".so") == std::string_view::npos) return false;
    lower.remove_prefix(3);
  }
  for (std::string_view stem : kStems) {
    if (lower.starts_with(stem)) return true;
  }
  return false;
}

}  // namespace zcuda::family
