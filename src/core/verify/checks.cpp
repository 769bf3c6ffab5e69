#include <zcuda/verify/verify.hpp>

namespace zcuda::verify {

const std::vector<CheckSpec>& checks() {
  // Same names and order as zcuda-probe --list (a test holds them equal).
  static const std::vector<CheckSpec> table = {
      {"driver.init", true, false, "cuInit, driver version, devices, compute capability, memory"},
      {"driver.memory", true, true, "64 MiB pattern to the device and back; bandwidth"},
      {"driver.kernel", true, false, "PTX vector add JIT-compiled, launched, compared"},
      {"driver.stream", true, true, "asynchronous copies on two streams with events; timing"},
      {"cublas.sgemm", true, false, "cublasSgemm FP32 against a double-precision product"},
      {"cublas.gemm_ex_f16", true, false, "cublasGemmEx FP16 inputs, FP32 compute"},
      {"cublaslt.matmul", true, false, "cublasLtMatmul FP32 with a heuristic algorithm"},
      {"cusparse.spmv_csr", true, false, "cusparseSpMV, CSR matrix times vector"},
      {"cusparse.spmm_coo", true, false, "cusparseSpMM, COO matrix times dense matrix"},
      {"cufft.c2c", false, false, "cufftExecC2C forward against a CPU DFT, inverse round trip"},
      {"cudnn.create", false, false, "cudnnCreate handle and version"},
      {"nvml.init", false, false, "nvmlInit, device count and name"},
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
