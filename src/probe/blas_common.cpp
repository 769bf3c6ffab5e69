#include "blas_common.hpp"

#include "reference.hpp"

namespace zcuda::probe {

std::vector<float> random_unit(std::size_t count, std::uint64_t seed) {
  ref::Lcg rng(seed);
  std::vector<float> v(count);
  for (auto& x : v) x = rng.unit();
  return v;
}

std::vector<float> random_symmetric(std::size_t count, std::uint64_t seed) {
  ref::Lcg rng(seed);
  std::vector<float> v(count);
  for (auto& x : v) x = rng.symmetric();
  return v;
}

Library open_cublas(Report& report, Driver& driver, BlasHandle& blas) {
  Library lib = require_library(report, "cublas");
  driver = open_driver(report);
  auto create = require_symbol<int (*)(BlasHandleT*)>(lib, "cublasCreate_v2");
  blas.destroy = require_symbol<BlasHandle::Destroy>(lib, "cublasDestroy_v2");
  check_status(Api::cublas, "cublasCreate_v2", create(&blas.handle));
  if (auto get_version = reinterpret_cast<int (*)(BlasHandleT, int*)>(lib.symbol("cublasGetVersion_v2"))) {
    int version = 0;
    const int rc = get_version(blas.handle, &version);
    if (rc == 0) {
      report.metrics.integer("cublas_version", version);
    } else {
      report.metrics.str("cublas_version", "cublasGetVersion_v2 answered " + status_name(Api::cublas, rc));
    }
  }
  return lib;
}

}  // namespace zcuda::probe
