// cusparse.*: the generic sparse API. ZLUDA implements only the COO SpMM path (upstream #621, and
// #624 added const dense descriptors, SpMM_preprocess and row-major operands), so the checks show
// users which of them works on their stack.
#include <cstdint>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

using Handle = void*;

// cusparse.h / library_types.h constants.
constexpr int kIndex32I = 2, kBaseZero = 0, kCudaR32F = 0, kOperationNonTranspose = 0, kOrderCol = 1, kOrderRow = 2, kAlgDefault = 0;

// Each output element sums ≤ 16 products of values in [-1, 1): FP32 rounding contributes about
// 1e-7 relative; 1e-6 is the simpleCUBLAS bound, which every correct implementation meets with
// margin and a wrong index or value does not.
constexpr double kTolerance = 1e-6;

struct SparseHandle {
  Handle h = nullptr;
  int (*destroy)(Handle) = nullptr;
  ~SparseHandle() {
    if (h && destroy) destroy(h);
  }
};

Library open_cusparse(Report& report, Driver& d, SparseHandle& handle) {
  Library lib = require_library(report, "cusparse");
  d = open_driver(report);
  auto create = require_symbol<int (*)(Handle*)>(lib, "cusparseCreate");
  handle.destroy = require_symbol<int (*)(Handle)>(lib, "cusparseDestroy");
  check_status(Api::cusparse, "cusparseCreate", create(&handle.h));
  // Reported, never a gate: ZLUDA answers NOT_SUPPORTED here.
  if (auto get_version = reinterpret_cast<int (*)(Handle, int*)>(lib.symbol("cusparseGetVersion"))) {
    int version = 0;
    const int rc = get_version(handle.h, &version);
    if (rc == 0) report.metrics.integer("cusparse_version", version);
  }
  return lib;
}

template <class T>
std::span<const T> view(const std::vector<T>& v) {
  return std::span<const T>(v);
}

}  // namespace

void check_cusparse_spmv_csr(Report& report) {
  Driver d;
  SparseHandle handle;
  Library lib = open_cusparse(report, d, handle);
  auto create_csr =
      require_symbol<int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, void*, void*, void*, int, int, int, int)>(lib, "cusparseCreateCsr");
  auto destroy_sp = require_symbol<int (*)(Handle)>(lib, "cusparseDestroySpMat");
  auto create_vec = require_symbol<int (*)(Handle*, std::int64_t, void*, int)>(lib, "cusparseCreateDnVec");
  auto destroy_vec = require_symbol<int (*)(Handle)>(lib, "cusparseDestroyDnVec");
  auto buffer_size =
      require_symbol<int (*)(Handle, int, const void*, Handle, Handle, const void*, Handle, int, int, std::size_t*)>(lib, "cusparseSpMV_bufferSize");
  auto spmv = require_symbol<int (*)(Handle, int, const void*, Handle, Handle, const void*, Handle, int, int, void*)>(lib, "cusparseSpMV");

  constexpr int rows = 1000, cols = 800;
  ref::Lcg rng(41);
  const auto a = ref::random_csr(rows, cols, 8, rng);
  std::vector<float> x(cols), y(rows);
  for (auto& v : x) v = rng.symmetric();
  for (auto& v : y) v = rng.symmetric();
  const float alpha = 1.5f, beta = 0.5f;
  DeviceBuffer d_off(d, a.row_offsets.size() * 4), d_col(d, a.columns.size() * 4), d_val(d, a.values.size() * 4), d_x(d, x.size() * 4),
      d_y(d, y.size() * 4);
  d_off.upload(view(a.row_offsets));
  d_col.upload(view(a.columns));
  d_val.upload(view(a.values));
  d_x.upload(view(x));
  d_y.upload(view(y));

  SparseHandle mat{nullptr, destroy_sp}, vx{nullptr, destroy_vec}, vy{nullptr, destroy_vec};
  check_status(Api::cusparse, "cusparseCreateCsr",
               create_csr(&mat.h, rows, cols, static_cast<std::int64_t>(a.values.size()), d_off.as_pointer(), d_col.as_pointer(), d_val.as_pointer(),
                          kIndex32I, kIndex32I, kBaseZero, kCudaR32F));
  check_status(Api::cusparse, "cusparseCreateDnVec", create_vec(&vx.h, cols, d_x.as_pointer(), kCudaR32F));
  check_status(Api::cusparse, "cusparseCreateDnVec", create_vec(&vy.h, rows, d_y.as_pointer(), kCudaR32F));
  std::size_t size = 0;
  check_status(Api::cusparse, "cusparseSpMV_bufferSize",
               buffer_size(handle.h, kOperationNonTranspose, &alpha, mat.h, vx.h, &beta, vy.h, kCudaR32F, kAlgDefault, &size));
  DeviceBuffer work(d, size > 0 ? size : 1);
  check_status(Api::cusparse, "cusparseSpMV",
               spmv(handle.h, kOperationNonTranspose, &alpha, mat.h, vx.h, &beta, vy.h, kCudaR32F, kAlgDefault, work.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = d_y.download<float>(y.size());
  const auto expected = ref::spmv_csr(rows, a.row_offsets, a.columns, a.values, x, alpha, beta, y);
  const double error = ref::rel_l2(view(expected), view(got));
  report.metrics.integer("rows", rows).integer("cols", cols).integer("nnz", static_cast<long long>(a.values.size()));
  report.metrics.num("max_abs_error", ref::max_abs_error(view(expected), view(got)));
  pass_if_within(report, "y = 1.5·A·x + 0.5·y, CSR 1000×800", error, kTolerance);
}

void check_cusparse_spmm_coo(Report& report) {
  Driver d;
  SparseHandle handle;
  Library lib = open_cusparse(report, d, handle);
  using CreateCoo = int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, const void*, const void*, const void*, int, int, int);
  // cusparseCreateConstCoo (CUDA 12+, and the one ZLUDA implements); CUDA 11 has only the
  // non-const form, which has the same ABI.
  auto create_coo = reinterpret_cast<CreateCoo>(lib.symbol("cusparseCreateConstCoo"));
  const char* create_coo_name = "cusparseCreateConstCoo";
  if (create_coo == nullptr) {
    create_coo = require_symbol<CreateCoo>(lib, "cusparseCreateCoo");
    create_coo_name = "cusparseCreateCoo";
  }
  auto destroy_sp = require_symbol<int (*)(Handle)>(lib, "cusparseDestroySpMat");
  auto create_dn = require_symbol<int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, void*, int, int)>(lib, "cusparseCreateDnMat");
  auto destroy_dn = require_symbol<int (*)(Handle)>(lib, "cusparseDestroyDnMat");
  auto buffer_size = require_symbol<int (*)(Handle, int, int, const void*, Handle, Handle, const void*, Handle, int, int, std::size_t*)>(
      lib, "cusparseSpMM_bufferSize");
  auto spmm = require_symbol<int (*)(Handle, int, int, const void*, Handle, Handle, const void*, Handle, int, int, void*)>(lib, "cusparseSpMM");

  constexpr int m = 300, k = 400, n = 16;
  ref::Lcg rng(51);
  const auto a = ref::random_csr(m, k, 8, rng);
  const auto row_index = ref::csr_row_indices(a);
  std::vector<float> b(std::size_t{k} * n), c(std::size_t{m} * n);
  for (auto& v : b) v = rng.symmetric();
  for (auto& v : c) v = rng.symmetric();
  const float alpha = 1.0f, beta = 0.25f;
  DeviceBuffer d_row(d, row_index.size() * 4), d_col(d, a.columns.size() * 4), d_val(d, a.values.size() * 4), d_b(d, b.size() * 4),
      d_c(d, c.size() * 4);
  d_row.upload(view(row_index));
  d_col.upload(view(a.columns));
  d_val.upload(view(a.values));
  d_b.upload(view(b));
  d_c.upload(view(c));

  SparseHandle mat{nullptr, destroy_sp}, mb{nullptr, destroy_dn}, mc{nullptr, destroy_dn};
  check_status(Api::cusparse, create_coo_name,
               create_coo(&mat.h, m, k, static_cast<std::int64_t>(a.values.size()), d_row.as_pointer(), d_col.as_pointer(), d_val.as_pointer(),
                          kIndex32I, kBaseZero, kCudaR32F));
  check_status(Api::cusparse, "cusparseCreateDnMat", create_dn(&mb.h, k, n, k, d_b.as_pointer(), kCudaR32F, kOrderCol));
  check_status(Api::cusparse, "cusparseCreateDnMat", create_dn(&mc.h, m, n, m, d_c.as_pointer(), kCudaR32F, kOrderCol));
  std::size_t size = 0;
  check_status(
      Api::cusparse, "cusparseSpMM_bufferSize",
      buffer_size(handle.h, kOperationNonTranspose, kOperationNonTranspose, &alpha, mat.h, mb.h, &beta, mc.h, kCudaR32F, kAlgDefault, &size));
  DeviceBuffer work(d, size > 0 ? size : 1);
  check_status(
      Api::cusparse, "cusparseSpMM",
      spmm(handle.h, kOperationNonTranspose, kOperationNonTranspose, &alpha, mat.h, mb.h, &beta, mc.h, kCudaR32F, kAlgDefault, work.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = d_c.download<float>(c.size());
  const auto expected = ref::spmm_coo(m, n, k, row_index, a.columns, a.values, b, alpha, beta, c);
  const double error = ref::rel_l2(view(expected), view(got));
  report.metrics.integer("rows", m).integer("cols", k).integer("dense_cols", n).integer("nnz", static_cast<long long>(a.values.size()));
  report.metrics.num("max_abs_error", ref::max_abs_error(view(expected), view(got)));
  pass_if_within(report, "C = A·B + 0.25·C, COO 300×400 times 400×16", error, kTolerance);
}

void check_cusparse_spmm_coo_row_major(Report& report) {
  Driver d;
  SparseHandle handle;
  Library lib = open_cusparse(report, d, handle);
  using CreateCoo = int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, const void*, const void*, const void*, int, int, int);
  using CreateConstDn = int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, const void*, int, int);
  using Stage = int (*)(Handle, int, int, const void*, Handle, Handle, const void*, Handle, int, int, void*);
  auto create_coo = require_symbol<CreateCoo>(lib, "cusparseCreateConstCoo");
  auto create_const_dn = require_symbol<CreateConstDn>(lib, "cusparseCreateConstDnMat");
  auto create_dn = require_symbol<int (*)(Handle*, std::int64_t, std::int64_t, std::int64_t, void*, int, int)>(lib, "cusparseCreateDnMat");
  auto destroy_sp = require_symbol<int (*)(Handle)>(lib, "cusparseDestroySpMat");
  auto destroy_dn = require_symbol<int (*)(Handle)>(lib, "cusparseDestroyDnMat");
  auto buffer_size = require_symbol<int (*)(Handle, int, int, const void*, Handle, Handle, const void*, Handle, int, int, std::size_t*)>(
      lib, "cusparseSpMM_bufferSize");
  auto preprocess = require_symbol<Stage>(lib, "cusparseSpMM_preprocess");
  auto spmm = require_symbol<Stage>(lib, "cusparseSpMM");

  // Column-major inputs for the reference, uploaded row-major (ld = columns).
  constexpr int m = 257, k = 311, n = 24;
  ref::Lcg rng(53);
  const auto a = ref::random_csr(m, k, 6, rng);
  const auto row_index = ref::csr_row_indices(a);
  std::vector<float> b(std::size_t{k} * n), c(std::size_t{m} * n);
  for (auto& v : b) v = rng.symmetric();
  for (auto& v : c) v = rng.symmetric();
  auto row_major = [](const std::vector<float>& col_major, std::size_t rows, std::size_t cols) {
    std::vector<float> out(col_major.size());
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < cols; ++j) out[r * cols + j] = col_major[r + j * rows];
    }
    return out;
  };
  const float alpha = -0.75f, beta = 2.0f;
  DeviceBuffer d_row(d, row_index.size() * 4), d_col(d, a.columns.size() * 4), d_val(d, a.values.size() * 4), d_b(d, b.size() * 4),
      d_c(d, c.size() * 4);
  d_row.upload(view(row_index));
  d_col.upload(view(a.columns));
  d_val.upload(view(a.values));
  d_b.upload(view(row_major(b, k, n)));
  d_c.upload(view(row_major(c, m, n)));

  SparseHandle mat{nullptr, destroy_sp}, mb{nullptr, destroy_dn}, mc{nullptr, destroy_dn};
  check_status(Api::cusparse, "cusparseCreateConstCoo",
               create_coo(&mat.h, m, k, static_cast<std::int64_t>(a.values.size()), d_row.as_pointer(), d_col.as_pointer(), d_val.as_pointer(),
                          kIndex32I, kBaseZero, kCudaR32F));
  check_status(Api::cusparse, "cusparseCreateConstDnMat (row-major)", create_const_dn(&mb.h, k, n, n, d_b.as_pointer(), kCudaR32F, kOrderRow));
  check_status(Api::cusparse, "cusparseCreateDnMat (row-major)", create_dn(&mc.h, m, n, n, d_c.as_pointer(), kCudaR32F, kOrderRow));
  std::size_t size = 0;
  check_status(
      Api::cusparse, "cusparseSpMM_bufferSize",
      buffer_size(handle.h, kOperationNonTranspose, kOperationNonTranspose, &alpha, mat.h, mb.h, &beta, mc.h, kCudaR32F, kAlgDefault, &size));
  DeviceBuffer work(d, size > 0 ? size : 1);
  check_status(Api::cusparse, "cusparseSpMM_preprocess",
               preprocess(handle.h, kOperationNonTranspose, kOperationNonTranspose, &alpha, mat.h, mb.h, &beta, mc.h, kCudaR32F, kAlgDefault,
                          work.as_pointer()));
  check_status(
      Api::cusparse, "cusparseSpMM",
      spmm(handle.h, kOperationNonTranspose, kOperationNonTranspose, &alpha, mat.h, mb.h, &beta, mc.h, kCudaR32F, kAlgDefault, work.as_pointer()));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got_rows = d_c.download<float>(c.size());
  std::vector<float> got(c.size());
  for (std::size_t r = 0; r < std::size_t{m}; ++r) {
    for (std::size_t j = 0; j < std::size_t{n}; ++j) got[r + j * m] = got_rows[r * n + j];
  }
  const auto expected = ref::spmm_coo(m, n, k, row_index, a.columns, a.values, b, alpha, beta, c);
  const double error = ref::rel_l2(view(expected), view(got));
  report.metrics.integer("rows", m).integer("cols", k).integer("dense_cols", n).integer("nnz", static_cast<long long>(a.values.size()));
  report.metrics.num("max_abs_error", ref::max_abs_error(view(expected), view(got)));
  pass_if_within(report, "C = -0.75·A·B + 2·C, const COO 257×311 times row-major 311×24, after SpMM_preprocess", error, kTolerance);
}

}  // namespace zcuda::probe
