#include "checks.hpp"

namespace zcuda::probe {

const std::vector<CheckInfo>& all_checks() {
  // Groups: checks that load the same libraries share one process (verify's scheduling, docs/verify.md).
  static const std::vector<CheckInfo> table = {
      {"driver.init", true, "driver", false, "cuInit, driver version, devices, names, compute capability, memory", check_driver_init},
      {"driver.memory", true, "", true, "64 MiB pattern copied to the device and back, compared; bandwidth", check_driver_memory},
      {"driver.kernel", true, "driver", false, "PTX vector add JIT-compiled, launched, compared with the CPU", check_driver_kernel},
      {"driver.stream", true, "", true, "asynchronous copies on two streams with events, compared; timing", check_driver_stream},
      {"driver.launch_ex", false, "driver", false, "cuLaunchKernelEx without and with a launch attribute (cooperative = 0)", check_driver_launch_ex},
      {"driver.func_attributes", false, "driver", false, "cuFuncGetAttribute PTX/binary version; opt-in dynamic shared memory used to its limit",
       check_driver_func_attributes},
      {"driver.multi_ptx", false, "driver", false, "fat binary with five PTX targets: the one for the device's compute capability runs",
       check_driver_multi_ptx},
      {"driver.graph", false, "driver", false, "kernels captured into a CUDA graph, instantiated, replayed three times", check_driver_graph},
      {"driver.memset", false, "driver", false, "cuMemsetD32 over a buffer and a sub-range, compared word by word", check_driver_memset},
      {"driver.texture", false, "driver", false, "a texture object over linear FP32 memory, fetched by a kernel (tex.1d), compared",
       check_driver_texture},
      {"driver.pitch_2d", false, "driver", false, "cuMemAllocPitch_v2 and cuMemcpy2D_v2: host, device and sub-rectangle 2D copies, compared",
       check_driver_pitch_2d},
      {"driver.cache_config", false, "driver", false, "cuCtxSetCacheConfig with each preference, a kernel compared under each",
       check_driver_cache_config},
      {"driver.pci_bus_id", false, "driver", false, "cuDeviceGetPCIBusId against the PCI domain, bus and device attributes", check_driver_pci_bus_id},
      {"cublas.sgemm", true, "cublas", false, "cublasSgemm (FP32) against a double-precision CPU product", check_cublas_sgemm},
      {"cublas.gemm_ex_f16", true, "cublas", false, "cublasGemmEx, FP16 inputs, FP32 output and compute", check_cublas_gemm_ex_f16},
      {"cublas.gemm_ex_bf16", false, "cublas", false, "cublasGemmEx, BF16 inputs, FP32 output and compute", check_cublas_gemm_ex_bf16},
      {"cublas.sgemm_tf32", false, "cublas", false, "cublasSgemm in CUBLAS_TF32_TENSOR_OP_MATH mode, within TF32 precision", check_cublas_sgemm_tf32},
      {"cublas.gemm_strided_batched", false, "cublas", false, "cublasSgemmStridedBatched, attention-score shapes (Q·Kᵀ over 12 heads)",
       check_cublas_gemm_strided_batched},
      {"cublaslt.matmul", true, "cublaslt", false, "cublasLtMatmul (FP32) with a heuristic algorithm", check_cublaslt_matmul},
      {"cublaslt.matmul_bias_epilogue", false, "cublaslt", false, "cublasLtMatmul with bias + ReLU and bias + GELU epilogues",
       check_cublaslt_matmul_bias_epilogue},
      {"cusparse.spmv_csr", true, "cusparse", false, "cusparseSpMV, CSR matrix times vector", check_cusparse_spmv_csr},
      {"cusparse.spmm_coo", true, "cusparse", false, "cusparseSpMM, COO matrix times dense matrix", check_cusparse_spmm_coo},
      {"cusparse.spmm_coo_row_major", false, "cusparse", false, "cusparseSpMM_preprocess + SpMM, const COO times a row-major const dense matrix",
       check_cusparse_spmm_coo_row_major},
      {"cusolver.lu_solve", false, "cusolver", false, "cusolverDnSgetrf + Sgetrs, backward error of the solution", check_cusolver_lu_solve},
      {"cusolver.cholesky_solve", false, "cusolver", false, "cusolverDnSpotrf + Spotrs, backward error of the solution",
       check_cusolver_cholesky_solve},
      {"cusolver.qr", false, "cusolver", false, "cusolverDnSgeqrf, ‖A − QR‖ and ‖I − QᵀQ‖", check_cusolver_qr},
      {"cusolver.syevd", false, "cusolver", false, "cusolverDnSsyevd, ‖A − VΛVᵀ‖, ‖I − VᵀV‖, eigenvalues", check_cusolver_syevd},
      {"cufft.c2c", false, "", false, "cufftExecC2C forward against a CPU DFT, inverse round trip", check_cufft_c2c},
      {"cudnn.create", false, "cudnn-ops", false, "cudnnCreate handle and cudnnGetVersion", check_cudnn_create},
      {"cudnn.conv_forward", false, "cudnn-conv", false, "cudnnConvolutionForward NCHW FP32, padding, stride, dilation", check_cudnn_conv_forward},
      {"cudnn.conv_backward_data", false, "cudnn-conv", false, "cudnnConvolutionBackwardData, same convolution", check_cudnn_conv_backward_data},
      {"cudnn.conv_backward_filter", false, "cudnn-conv", false, "cudnnConvolutionBackwardFilter, same convolution",
       check_cudnn_conv_backward_filter},
      {"cudnn.pooling", false, "cudnn-ops", false, "cudnnPoolingForward, max and average 3×3 stride 2 pad 1", check_cudnn_pooling},
      {"cudnn.softmax", false, "cudnn-ops", false, "cudnnSoftmaxForward over channels, accurate and log", check_cudnn_softmax},
      {"cudnn.batchnorm_train", false, "cudnn-ops", false, "cudnnBatchNormalizationForwardTraining, outputs and running statistics",
       check_cudnn_batchnorm_train},
      {"nvrtc.compile", false, "", false, "NVRTC compiles a kernel from source; it is loaded, launched, compared", check_nvrtc_compile},
      {"nvml.init", false, "", false, "nvmlInit, device count and name", check_nvml_init},
  };
  return table;
}

const CheckInfo* find_check(std::string_view name) {
  for (const auto& c : all_checks()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace zcuda::probe
