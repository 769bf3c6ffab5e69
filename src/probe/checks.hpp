#pragma once
// The registry of checks. Names are stable: the runner, saved results and docs use them.
#include <string_view>
#include <vector>

#include "check.hpp"

namespace zcuda::probe {

struct CheckInfo {
  const char* name;
  bool core;            // a failure of a core check fails `zcuda verify`
  const char* summary;
  void (*run)(Report& report);
};

const std::vector<CheckInfo>& all_checks();
const CheckInfo* find_check(std::string_view name);

// Implementations, one file per library family.
void check_driver_init(Report& report);
void check_driver_memory(Report& report);
void check_driver_kernel(Report& report);
void check_driver_stream(Report& report);
void check_cublas_sgemm(Report& report);
void check_cublas_gemm_ex_f16(Report& report);
void check_cublaslt_matmul(Report& report);
void check_cusparse_spmv_csr(Report& report);
void check_cusparse_spmm_coo(Report& report);
void check_cufft_c2c(Report& report);
void check_cudnn_create(Report& report);
void check_nvml_init(Report& report);

}  // namespace zcuda::probe
