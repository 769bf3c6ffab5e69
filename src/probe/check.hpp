#pragma once
// What one check produces, and the helpers every check uses to load libraries, resolve
// functions and turn a library status into a verdict.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "json_writer.hpp"
#include "library.hpp"
#include "status_names.hpp"

namespace zcuda::probe {

// The probe decides pass, fail, unsupported, missing and error; the runner adds crash and timeout.
enum class Status { pass, fail, unsupported, missing, error };
const char* to_string(Status status);

struct ApiError {
  std::string api;  // "cublasSgemm_v2"
  long long code = 0;
  std::string name;  // "CUBLAS_STATUS_NOT_SUPPORTED"
};

struct Report {
  std::string check;
  Status status = Status::error;
  std::string detail;
  std::string stack = "unknown";  // "nvidia" | "zluda" | "unknown"
  std::string device;
  std::vector<LoadedFile> libraries;
  std::optional<ApiError> error;
  json::Object metrics;

  std::string to_json(double seconds) const;
};

// Ends a check early with a verdict. Thrown and caught only inside the probe.
struct Stop {
  Status status;
  std::string detail;
  std::optional<ApiError> error;
};

// Loads the library for `role`; Stop(missing) when no name loads, saying what an application
// loses without it. cuDNN that is present but cannot load a library it needs (its backend) is
// Stop(unsupported).
Library require_library(Report& report, const std::string& role);

// "cuBLAS", "the CUDA driver", ...
std::string display_name(const std::string& role);

// A function exported by `lib`; Stop(unsupported) when it is not exported.
template <class Fn>
Fn require_symbol(const Library& lib, const char* name) {
  void* address = lib.symbol(name);
  if (address == nullptr) {
    throw Stop{Status::unsupported, lib.file().path + " does not export " + name, std::nullopt};
  }
  return reinterpret_cast<Fn>(address);
}

// Stops with `unsupported` for the library's NOT_SUPPORTED code, `error` for any other non-zero.
void check_status(Api api, const char* call, long long code);

// Compares a measured error with its tolerance: Stop(fail) with both numbers when it is larger.
void require_within(Report& report, const std::string& measure, double error, double tolerance);

// For a relative L2 error: require_within's metrics and Stop(fail) when it is larger than the
// tolerance, otherwise the check passed, its detail naming what was compared and both numbers.
void pass_if_within(Report& report, const std::string& what, double error, double tolerance);

// Wall-clock seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace zcuda::probe
