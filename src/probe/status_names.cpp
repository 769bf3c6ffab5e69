#include "status_names.hpp"

#include <utility>

namespace zcuda::probe {
namespace {

struct Entry {
  long long code;
  const char* name;
};

template <std::size_t N>
const char* find(const Entry (&table)[N], long long code) {
  for (const auto& e : table) {
    if (e.code == code) return e.name;
  }
  return nullptr;
}

// CUresult (cuda.h, CUDA 13.0).
constexpr Entry kCuda[] = {
    {0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"}, {4, "CUDA_ERROR_DEINITIALIZED"}, {34, "CUDA_ERROR_STUB_LIBRARY"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"}, {100, "CUDA_ERROR_NO_DEVICE"}, {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"}, {200, "CUDA_ERROR_INVALID_IMAGE"}, {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"}, {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"}, {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {300, "CUDA_ERROR_INVALID_SOURCE"}, {301, "CUDA_ERROR_FILE_NOT_FOUND"}, {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"}, {600, "CUDA_ERROR_NOT_READY"}, {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}, {702, "CUDA_ERROR_LAUNCH_TIMEOUT"}, {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"}, {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"}, {999, "CUDA_ERROR_UNKNOWN"},
};

// cublasStatus_t (cublas_api.h), shared by cuBLASLt.
constexpr Entry kCublas[] = {
    {0, "CUBLAS_STATUS_SUCCESS"}, {1, "CUBLAS_STATUS_NOT_INITIALIZED"}, {3, "CUBLAS_STATUS_ALLOC_FAILED"},
    {7, "CUBLAS_STATUS_INVALID_VALUE"}, {8, "CUBLAS_STATUS_ARCH_MISMATCH"}, {11, "CUBLAS_STATUS_MAPPING_ERROR"},
    {13, "CUBLAS_STATUS_EXECUTION_FAILED"}, {14, "CUBLAS_STATUS_INTERNAL_ERROR"}, {15, "CUBLAS_STATUS_NOT_SUPPORTED"},
    {16, "CUBLAS_STATUS_LICENSE_ERROR"},
};

// cusparseStatus_t (cusparse.h).
constexpr Entry kCusparse[] = {
    {0, "CUSPARSE_STATUS_SUCCESS"}, {1, "CUSPARSE_STATUS_NOT_INITIALIZED"}, {2, "CUSPARSE_STATUS_ALLOC_FAILED"},
    {3, "CUSPARSE_STATUS_INVALID_VALUE"}, {4, "CUSPARSE_STATUS_ARCH_MISMATCH"}, {5, "CUSPARSE_STATUS_MAPPING_ERROR"},
    {6, "CUSPARSE_STATUS_EXECUTION_FAILED"}, {7, "CUSPARSE_STATUS_INTERNAL_ERROR"},
    {8, "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED"}, {9, "CUSPARSE_STATUS_ZERO_PIVOT"},
    {10, "CUSPARSE_STATUS_NOT_SUPPORTED"}, {11, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES"},
};

// cufftResult (cufft.h, cuFFT 12).
constexpr Entry kCufft[] = {
    {0, "CUFFT_SUCCESS"}, {1, "CUFFT_INVALID_PLAN"}, {2, "CUFFT_ALLOC_FAILED"}, {3, "CUFFT_INVALID_TYPE"},
    {4, "CUFFT_INVALID_VALUE"}, {5, "CUFFT_INTERNAL_ERROR"}, {6, "CUFFT_EXEC_FAILED"}, {7, "CUFFT_SETUP_FAILED"},
    {8, "CUFFT_INVALID_SIZE"}, {9, "CUFFT_UNALIGNED_DATA"}, {11, "CUFFT_INVALID_DEVICE"}, {13, "CUFFT_NO_WORKSPACE"},
    {14, "CUFFT_NOT_IMPLEMENTED"}, {16, "CUFFT_NOT_SUPPORTED"}, {17, "CUFFT_MISSING_DEPENDENCY"},
    {18, "CUFFT_NVRTC_FAILURE"}, {19, "CUFFT_NVJITLINK_FAILURE"}, {20, "CUFFT_NVSHMEM_FAILURE"},
};

// cudnnStatus_t of cuDNN 9 (cudnn_graph.h); cuDNN 8 numbered them 0..n, see below.
constexpr Entry kCudnn9[] = {
    {0, "CUDNN_STATUS_SUCCESS"}, {1001, "CUDNN_STATUS_NOT_INITIALIZED"},
    {1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"}, {1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH"},
    {1004, "CUDNN_STATUS_DEPRECATED"}, {1005, "CUDNN_STATUS_LICENSE_ERROR"}, {1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS"},
    {1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"}, {1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED"},
    {2000, "CUDNN_STATUS_BAD_PARAM"}, {3000, "CUDNN_STATUS_NOT_SUPPORTED"}, {4000, "CUDNN_STATUS_INTERNAL_ERROR"},
    {5000, "CUDNN_STATUS_EXECUTION_FAILED"},
};

constexpr Entry kCudnn8[] = {
    {1, "CUDNN_STATUS_NOT_INITIALIZED"}, {2, "CUDNN_STATUS_ALLOC_FAILED"}, {3, "CUDNN_STATUS_BAD_PARAM"},
    {4, "CUDNN_STATUS_INTERNAL_ERROR"}, {5, "CUDNN_STATUS_INVALID_VALUE"}, {6, "CUDNN_STATUS_ARCH_MISMATCH"},
    {7, "CUDNN_STATUS_MAPPING_ERROR"}, {8, "CUDNN_STATUS_EXECUTION_FAILED"}, {9, "CUDNN_STATUS_NOT_SUPPORTED"},
    {10, "CUDNN_STATUS_LICENSE_ERROR"}, {11, "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING"},
};

// nvmlReturn_t (nvml.h).
constexpr Entry kNvml[] = {
    {0, "NVML_SUCCESS"}, {1, "NVML_ERROR_UNINITIALIZED"}, {2, "NVML_ERROR_INVALID_ARGUMENT"},
    {3, "NVML_ERROR_NOT_SUPPORTED"}, {4, "NVML_ERROR_NO_PERMISSION"}, {5, "NVML_ERROR_ALREADY_INITIALIZED"},
    {6, "NVML_ERROR_NOT_FOUND"}, {7, "NVML_ERROR_INSUFFICIENT_SIZE"}, {8, "NVML_ERROR_INSUFFICIENT_POWER"},
    {9, "NVML_ERROR_DRIVER_NOT_LOADED"}, {10, "NVML_ERROR_TIMEOUT"}, {11, "NVML_ERROR_IRQ_ISSUE"},
    {12, "NVML_ERROR_LIBRARY_NOT_FOUND"}, {13, "NVML_ERROR_FUNCTION_NOT_FOUND"}, {14, "NVML_ERROR_CORRUPTED_INFOROM"},
    {15, "NVML_ERROR_GPU_IS_LOST"}, {16, "NVML_ERROR_RESET_REQUIRED"}, {17, "NVML_ERROR_OPERATING_SYSTEM"},
    {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"}, {19, "NVML_ERROR_IN_USE"}, {20, "NVML_ERROR_MEMORY"},
    {999, "NVML_ERROR_UNKNOWN"},
};

}  // namespace

std::string status_name(Api api, long long code) {
  const char* name = nullptr;
  switch (api) {
    case Api::cuda: name = find(kCuda, code); break;
    case Api::cublas: name = find(kCublas, code); break;
    case Api::cusparse: name = find(kCusparse, code); break;
    case Api::cufft: name = find(kCufft, code); break;
    // The two cuDNN numberings do not overlap except at 0, so one lookup serves both ABIs.
    case Api::cudnn: name = code >= 1000 || code == 0 ? find(kCudnn9, code) : find(kCudnn8, code); break;
    case Api::nvml: name = find(kNvml, code); break;
  }
  return name ? name : "UNKNOWN_STATUS_" + std::to_string(code);
}

bool is_not_supported(Api api, long long code) {
  switch (api) {
    case Api::cuda: return code == 801;
    case Api::cublas: return code == 15;
    case Api::cusparse: return code == 10;
    case Api::cufft: return code == 16 || code == 14;  // NOT_SUPPORTED, NOT_IMPLEMENTED
    case Api::cudnn: return code == 9 || (code >= 3000 && code < 4000);  // v8; v9 NOT_SUPPORTED family
    case Api::nvml: return code == 3;
  }
  return false;
}

}  // namespace zcuda::probe
