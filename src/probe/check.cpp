#include "check.hpp"

#include <cstdio>

namespace zcuda::probe {

const char* to_string(Status status) {
  switch (status) {
    case Status::pass:
      return "pass";
    case Status::fail:
      return "fail";
    case Status::unsupported:
      return "unsupported";
    case Status::missing:
      return "missing";
    case Status::error:
      return "error";
  }
  return "error";
}

std::string Report::to_json(double seconds) const {
  json::Array libs;
  for (const auto& f : libraries) {
    json::Object o;
    o.str("role", f.role).str("requested", f.requested).str("path", f.path).str("real_path", f.real_path);
    if (f.size >= 0) o.integer("size", f.size);
    libs.raw(o.text());
  }
  json::Object out;
  out.integer("probe_schema", 1)
      .str("check", check)
      .str("status", to_string(status))
      .str("detail", detail)
      .str("stack", stack)
      .str("device", device)
      .num("seconds", seconds)
      .raw("libraries", libs.text())
      .raw("metrics", metrics.text());
  if (error) {
    json::Object e;
    e.str("api", error->api).integer("code", error->code).str("name", error->name);
    out.raw("error", e.text());
  }
  return out.text();
}

namespace {

struct RoleInfo {
  const char* role;
  const char* display;
  const char* consequence;  // what an application loses without it; "" when obvious
};

constexpr RoleInfo kRoles[] = {
    {"driver", "the CUDA driver", ""},
    {"cublas", "cuBLAS", ""},
    {"cublaslt", "cuBLASLt", ""},
    {"cusparse", "cuSPARSE", ""},
    {"cufft", "cuFFT", ""},
    {"cudnn", "cuDNN", "convolutions, pooling and normalisation in PyTorch and other cuDNN users will fail"},
    {"cusolver", "cuSOLVER", "PyTorch's GPU linear algebra (torch.linalg on CUDA tensors) will fail"},
    {"nvrtc", "NVRTC", "kernels compiled at run time (PyTorch's fused kernels, CuPy, Numba) will fail"},
    {"nvml", "NVML", ""},
};

const RoleInfo* role_info(const std::string& role) {
  for (const auto& r : kRoles) {
    if (role == r.role) return &r;
  }
  return nullptr;
}

}  // namespace

std::string display_name(const std::string& role) {
  const auto* info = role_info(role);
  return info ? info->display : role;
}

Library require_library(Report& report, const std::string& role) {
  std::string error;
  bool present = false;
  const auto names = library_names(role);
  Library lib = Library::open(role, names, error, present);
  if (!lib.loaded()) {
    std::string tried;
    for (const auto& n : names) tried += (tried.empty() ? "" : ", ") + n;
    const auto* info = role_info(role);
    const std::string consequence = info && *info->consequence ? std::string("; ") + info->consequence : "";
    if (present && role == "cudnn") {
      // cuDNN is there but its backend is not (ZLUDA's cuDNN needs MIOpen, which the stable
      // Windows HIP SDK lacks; NVIDIA's needs its sub-libraries): the honest answer is that
      // this stack cannot do it, not that it computed wrongly.
      throw Stop{Status::unsupported,
                 "cuDNN is present but could not be loaded, a library it needs is missing (ZLUDA's cuDNN needs MIOpen): " + error + consequence,
                 std::nullopt};
    }
    throw Stop{Status::missing,
               display_name(role) + (present ? " is present but could not be loaded (tried " : " was not found (tried ") + tried + "): " + error +
                   consequence,
               std::nullopt};
  }
  report.libraries.push_back(lib.file());
  return lib;
}

void check_status(Api api, const char* call, long long code) {
  if (code == 0) return;
  ApiError e{call, code, status_name(api, code)};
  const bool unsupported = is_not_supported(api, code);
  std::string detail = std::string(call) + " returned " + std::to_string(code) + " (" + e.name + ")";
  if (unsupported) detail += ": not supported by this library";
  throw Stop{unsupported ? Status::unsupported : Status::error, detail, e};
}

void require_within(Report& report, const std::string& measure, double error, double tolerance) {
  report.metrics.num(measure, error).num(measure + "_tolerance", tolerance);
  if (error <= tolerance) return;  // also false for NaN, which therefore fails
  char text[160];
  std::snprintf(text, sizeof text, "%s %.3g exceeds the tolerance %.3g", measure.c_str(), error, tolerance);
  throw Stop{Status::fail, text, std::nullopt};
}

void pass_if_within(Report& report, const std::string& what, double error, double tolerance) {
  require_within(report, "rel_l2_error", error, tolerance);
  char text[240];
  std::snprintf(text, sizeof text, "%s: relative L2 error %.3g (tolerance %.3g)", what.c_str(), error, tolerance);
  report.status = Status::pass;
  report.detail = text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace zcuda::probe
