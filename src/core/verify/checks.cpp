#include <zcuda/verify/verify.hpp>

namespace zcuda::verify {

const std::vector<CheckSpec>& checks() {
  // Same names, core flags, groups and order as zcuda-probe --list (a test holds them equal).
  static const std::vector<CheckSpec> table = {
      {"driver.init", true, "driver", false, "cuInit, driver version, devices, compute capability, memory"},
      {"driver.memory", true, "", true, "64 MiB pattern to the device and back; bandwidth"},
      {"driver.kernel", true, "driver", false, "PTX vector add JIT-compiled, launched, compared"},
      {"driver.stream", true, "", true, "asynchronous copies on two streams with events; timing"},
      {"driver.launch_ex", false, "driver", false, "cuLaunchKernelEx plain and with a launch attribute"},
      {"driver.func_attributes", false, "driver", false, "PTX/binary version attributes; opt-in shared memory used to its limit"},
      {"driver.multi_ptx", false, "driver", false, "fat binary with five PTX targets: the right one runs"},
      {"driver.graph", false, "driver", false, "CUDA graph captured, instantiated, replayed"},
      {"driver.memset", false, "driver", false, "cuMemsetD32 over a buffer and a sub-range"},
      {"driver.texture", false, "driver", false, "texture object over linear FP32 memory, fetched by a kernel"},
      {"driver.pitch_2d", false, "driver", false, "cuMemAllocPitch_v2 and cuMemcpy2D_v2 copies, compared"},
      {"driver.cache_config", false, "driver", false, "cuCtxSetCacheConfig preferences, a kernel compared under each"},
      {"driver.pci_bus_id", false, "driver", false, "cuDeviceGetPCIBusId against the PCI attributes"},
      {"cublas.sgemm", true, "cublas", false, "cublasSgemm FP32 against a double-precision product"},
      {"cublas.gemm_ex_f16", true, "cublas", false, "cublasGemmEx FP16 inputs, FP32 compute"},
      {"cublas.gemm_ex_bf16", false, "cublas", false, "cublasGemmEx BF16 inputs, FP32 compute"},
      {"cublas.sgemm_tf32", false, "cublas", false, "cublasSgemm in TF32 tensor-op math mode"},
      {"cublas.gemm_strided_batched", false, "cublas", false, "cublasSgemmStridedBatched, attention shapes"},
      {"cublaslt.matmul", true, "cublaslt", false, "cublasLtMatmul FP32 with a heuristic algorithm"},
      {"cublaslt.matmul_bias_epilogue", false, "cublaslt", false, "cublasLtMatmul with bias + ReLU / GELU epilogues"},
      {"cusparse.spmv_csr", true, "cusparse", false, "cusparseSpMV, CSR matrix times vector"},
      {"cusparse.spmm_coo", true, "cusparse", false, "cusparseSpMM, COO matrix times dense matrix"},
      {"cusparse.spmm_coo_row_major", false, "cusparse", false, "cusparseSpMM_preprocess + SpMM, row-major const dense matrix"},
      {"cusolver.lu_solve", false, "cusolver", false, "cuSOLVER LU factorisation and solve"},
      {"cusolver.cholesky_solve", false, "cusolver", false, "cuSOLVER Cholesky factorisation and solve"},
      {"cusolver.qr", false, "cusolver", false, "cuSOLVER QR factorisation"},
      {"cusolver.syevd", false, "cusolver", false, "cuSOLVER symmetric eigensolver"},
      {"cufft.c2c", false, "", false, "cufftExecC2C forward against a CPU DFT, inverse round trip"},
      {"cudnn.create", false, "cudnn-ops", false, "cudnnCreate handle and version"},
      {"cudnn.conv_forward", false, "cudnn-conv", false, "cuDNN convolution forward, padding, stride, dilation"},
      {"cudnn.conv_backward_data", false, "cudnn-conv", false, "cuDNN convolution backward data"},
      {"cudnn.conv_backward_filter", false, "cudnn-conv", false, "cuDNN convolution backward filter"},
      {"cudnn.pooling", false, "cudnn-ops", false, "cuDNN max and average pooling"},
      {"cudnn.softmax", false, "cudnn-ops", false, "cuDNN softmax and log-softmax over channels"},
      {"cudnn.batchnorm_train", false, "cudnn-ops", false, "cuDNN batch normalisation, training forward"},
      {"nvrtc.compile", false, "", false, "NVRTC compiles a kernel at run time; loaded, launched, compared"},
      {"nvml.init", false, "", false, "nvmlInit, device count and name"},
  };
  return table;
}

const CheckSpec* find_check(std::string_view name) {
  for (const auto& c : checks()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace zcuda::verify
