#include "ptx_module.hpp"

#include <algorithm>
#include <cstdint>

#include "ptx_kernels.hpp"

namespace zcuda::probe {
namespace {

// Codes a driver gives for PTX it cannot take: retry with the other header.
bool is_ptx_rejection(int code) { return code == 209 || code == 218 || code == 222; }

}  // namespace

PtxModule::PtxModule(const Driver& driver, std::string_view body, const char* entry) : driver_(driver) {
  std::string log;
  const char* call = "";
  int rc = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& header : ptx::kHeaders) {
    const std::string text = std::string(header.text) + std::string(body);
    char error_log[4096] = {};
    int options[] = {5 /*CU_JIT_ERROR_LOG_BUFFER*/, 6 /*CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES*/};
    void* values[] = {error_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof error_log))};
    call = "cuModuleLoadDataEx";
    rc = driver_.cuModuleLoadDataEx(&module_, text.c_str(), 2, options, values);
    if (rc == 0) {
      CUfunction probe = nullptr;
      call = "cuModuleGetFunction";
      rc = driver_.cuModuleGetFunction(&probe, module_, entry);
      if (rc != 0) {
        driver_.cuModuleUnload(module_);
        module_ = nullptr;
      }
    }
    if (rc == 0) {
      header_ = header.text;
      sm_ = header.sm;
      break;
    }
    log = error_log;
    if (first_failure_.empty()) first_failure_ = std::string(call) + " " + std::to_string(rc) + " " + status_name(Api::cuda, rc);
    if (call == std::string_view("cuModuleLoadDataEx") && !is_ptx_rejection(rc)) break;  // not about the PTX dialect
  }
  jit_seconds_ = seconds_since(start);
  if (rc != 0) {
    try {
      check_status(Api::cuda, call, rc);
    } catch (Stop& stop) {
      stop.detail += "; first attempt: " + first_failure_ + (log.empty() ? "" : "; JIT log: " + log);
      throw;
    }
  }
}

PtxModule::~PtxModule() {
  if (module_ != nullptr) driver_.cuModuleUnload(module_);
}

CUfunction PtxModule::function(const char* name) const {
  CUfunction f = nullptr;
  check_status(Api::cuda, "cuModuleGetFunction", driver_.cuModuleGetFunction(&f, module_, name));
  return f;
}

std::string PtxModule::header() const {
  std::string text = header_;
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int compute_capability(const Driver& driver) {
  int major = 0, minor = 0;
  check_status(Api::cuda, "cuDeviceGetAttribute", driver.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, driver.device));
  check_status(Api::cuda, "cuDeviceGetAttribute", driver.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, driver.device));
  return major * 10 + minor;
}

}  // namespace zcuda::probe
