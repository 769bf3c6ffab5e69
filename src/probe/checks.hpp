#pragma once
// The registry of checks. Names are stable: the runner, saved results and docs use them.
#include <string_view>
#include <vector>

#include "check.hpp"

namespace zcuda::probe {

struct CheckInfo {
  const char* name;
  bool core;          // a failure of a core check fails `zcuda verify`
  const char* group;  // checks of one group may share a probe process ("" = always alone)
  bool exclusive;     // measures time or bandwidth: runs alone, never beside another probe
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
void check_driver_launch_ex(Report& report);
void check_driver_func_attributes(Report& report);
void check_driver_multi_ptx(Report& report);
void check_driver_graph(Report& report);
void check_driver_memset(Report& report);
void check_driver_texture(Report& report);
void check_driver_pitch_2d(Report& report);
void check_driver_cache_config(Report& report);
void check_driver_pci_bus_id(Report& report);
void check_cublas_sgemm(Report& report);
void check_cublas_gemm_ex_f16(Report& report);
void check_cublas_gemm_ex_bf16(Report& report);
void check_cublas_sgemm_tf32(Report& report);
void check_cublas_gemm_strided_batched(Report& report);
void check_cublaslt_matmul(Report& report);
void check_cublaslt_matmul_bias_epilogue(Report& report);
void check_cusparse_spmv_csr(Report& report);
void check_cusparse_spmm_coo(Report& report);
void check_cusparse_spmm_coo_row_major(Report& report);
void check_cusolver_lu_solve(Report& report);
void check_cusolver_cholesky_solve(Report& report);
void check_cusolver_qr(Report& report);
void check_cusolver_syevd(Report& report);
void check_cufft_c2c(Report& report);
void check_cudnn_create(Report& report);
void check_cudnn_conv_forward(Report& report);
void check_cudnn_conv_backward_data(Report& report);
void check_cudnn_conv_backward_filter(Report& report);
void check_cudnn_pooling(Report& report);
void check_cudnn_softmax(Report& report);
void check_cudnn_batchnorm_train(Report& report);
void check_nvrtc_compile(Report& report);
void check_nvml_init(Report& report);

}  // namespace zcuda::probe
