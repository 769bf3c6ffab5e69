#include "checks.hpp"

namespace zcuda::probe {

const std::vector<CheckInfo>& all_checks() {
  static const std::vector<CheckInfo> table = {
      {"driver.init", true, "cuInit, driver version, devices, names, compute capability, memory", check_driver_init},
      {"driver.memory", true, "64 MiB pattern copied to the device and back, compared; bandwidth", check_driver_memory},
      {"driver.kernel", true, "PTX vector add JIT-compiled, launched, compared with the CPU", check_driver_kernel},
      {"driver.stream", true, "asynchronous copies on two streams with events, compared; timing", check_driver_stream},
      {"cublas.sgemm", true, "cublasSgemm (FP32) against a double-precision CPU product", check_cublas_sgemm},
      {"cublas.gemm_ex_f16", true, "cublasGemmEx, FP16 inputs, FP32 output and compute", check_cublas_gemm_ex_f16},
      {"cublaslt.matmul", true, "cublasLtMatmul (FP32) with a heuristic algorithm", check_cublaslt_matmul},
      {"cusparse.spmv_csr", true, "cusparseSpMV, CSR matrix times vector", check_cusparse_spmv_csr},
      {"cusparse.spmm_coo", true, "cusparseSpMM, COO matrix times dense matrix", check_cusparse_spmm_coo},
      {"cufft.c2c", false, "cufftExecC2C forward against a CPU DFT, inverse round trip", check_cufft_c2c},
      {"cudnn.create", false, "cudnnCreate handle and cudnnGetVersion", check_cudnn_create},
      {"nvml.init", false, "nvmlInit, device count and name", check_nvml_init},
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
