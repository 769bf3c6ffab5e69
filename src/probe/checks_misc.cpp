// cufft.c2c, nvml.init: libraries outside the core set. They are shown but do not decide
// `zcuda verify`'s exit code (ZLUDA's cuFFT is a stub; NVML is a stub on Windows).
#include <complex>
#include <cstdint>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {

void check_cufft_c2c(Report& report) {
  Library lib = require_library(report, "cufft");
  Driver d = open_driver(report);
  auto plan1d = require_symbol<int (*)(int*, int, int, int)>(lib, "cufftPlan1d");
  auto exec = require_symbol<int (*)(int, void*, void*, int)>(lib, "cufftExecC2C");
  auto destroy = require_symbol<int (*)(int)>(lib, "cufftDestroy");
  if (auto get_version = reinterpret_cast<int (*)(int*)>(lib.symbol("cufftGetVersion"))) {
    int version = 0;
    if (get_version(&version) == 0) report.metrics.integer("cufft_version", version);
  }

  constexpr int kSize = 1024;
  constexpr int kC2C = 0x29, kForward = -1, kInverse = 1;
  // Rounding in a float FFT grows like log2(N)·2^-24 ≈ 6e-7 for N = 1024; 1e-5 is NVIDIA's
  // simpleCUFFT bound. A wrong twiddle, sign or stride gives errors of order 1.
  constexpr double kTolerance = 1e-5;
  ref::Lcg rng(61);
  std::vector<float> input(2 * kSize);
  for (auto& v : input) v = rng.symmetric();
  std::vector<std::complex<double>> x(kSize);
  for (int i = 0; i < kSize; ++i)
    x[static_cast<std::size_t>(i)] = {input[2 * static_cast<std::size_t>(i)], input[2 * static_cast<std::size_t>(i) + 1]};

  struct Plan {
    int handle = 0;
    bool made = false;
    int (*destroy)(int);
    ~Plan() {
      if (made) destroy(handle);
    }
  } plan{0, false, destroy};
  check_status(Api::cufft, "cufftPlan1d", plan1d(&plan.handle, kSize, kC2C, 1));
  plan.made = true;
  DeviceBuffer data(d, input.size() * 4);
  data.upload(std::span<const float>(input));
  const auto start = std::chrono::steady_clock::now();
  check_status(Api::cufft, "cufftExecC2C", exec(plan.handle, data.as_pointer(), data.as_pointer(), kForward));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  report.metrics.num("forward_ms", seconds_since(start) * 1000.0);
  const auto forward = data.download<float>(input.size());
  const auto expected = ref::dft(x, -1);
  const double forward_error = ref::rel_l2_complex(expected, forward);

  check_status(Api::cufft, "cufftExecC2C", exec(plan.handle, data.as_pointer(), data.as_pointer(), kInverse));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  auto round_trip = data.download<float>(input.size());
  for (auto& v : round_trip) v /= static_cast<float>(kSize);  // cuFFT is unnormalised: inverse(forward(x)) = N·x
  const double inverse_error = ref::rel_l2_complex(x, round_trip);

  report.metrics.integer("size", kSize);
  require_within(report, "forward_rel_l2_error", forward_error, kTolerance);
  require_within(report, "round_trip_rel_l2_error", inverse_error, kTolerance);
  char text[200];
  std::snprintf(text, sizeof text, "1024-point C2C: forward relative L2 error %.3g, inverse round trip %.3g (tolerance %.3g)", forward_error,
                inverse_error, kTolerance);
  report.status = Status::pass;
  report.detail = text;
}

void check_nvml_init(Report& report) {
  Library lib = require_library(report, "nvml");
  auto init = require_symbol<int (*)()>(lib, "nvmlInit_v2");
  auto shutdown = require_symbol<int (*)()>(lib, "nvmlShutdown");
  auto count_fn = require_symbol<int (*)(unsigned*)>(lib, "nvmlDeviceGetCount_v2");
  auto handle_fn = require_symbol<int (*)(unsigned, void**)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto name_fn = require_symbol<int (*)(void*, char*, unsigned)>(lib, "nvmlDeviceGetName");
  auto driver_fn = reinterpret_cast<int (*)(char*, unsigned)>(lib.symbol("nvmlSystemGetDriverVersion"));

  check_status(Api::nvml, "nvmlInit_v2", init());
  struct Shutdown {
    int (*fn)();
    ~Shutdown() { fn(); }
  } guard{shutdown};
  unsigned count = 0;
  check_status(Api::nvml, "nvmlDeviceGetCount_v2", count_fn(&count));
  if (count == 0) throw Stop{Status::error, "nvmlDeviceGetCount_v2 reports no device", std::nullopt};
  void* device = nullptr;
  check_status(Api::nvml, "nvmlDeviceGetHandleByIndex_v2", handle_fn(0, &device));
  char name[256] = {};
  check_status(Api::nvml, "nvmlDeviceGetName", name_fn(device, name, sizeof name - 1));
  report.device = name;
  // NVML answers without the driver API, so only ZLUDA's own suffix identifies the stack here.
  if (report.device.ends_with(" [ZLUDA]")) report.stack = "zluda";
  report.metrics.integer("device_count", count);
  if (driver_fn != nullptr) {
    char version[96] = {};
    if (driver_fn(version, sizeof version - 1) == 0) report.metrics.str("driver_version", version);
  }
  report.status = Status::pass;
  report.detail = std::to_string(count) + " device(s); device 0: " + report.device;
}

}  // namespace zcuda::probe
