// nvrtc.compile: a kernel compiled from C++ source at run time by NVRTC, loaded as PTX through the
// driver, launched and compared bit for bit: the path of PyTorch's fused kernels, CuPy's
// RawKernel and every other JIT that generates CUDA source.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "ptx_module.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

using Program = void*;

// A template and a builtin index: NVRTC's C++ front end and its device headers are exercised,
// integer arithmetic keeps the answer exact.
constexpr const char* kSource = R"(
template <typename T>
__device__ T mix(T value, T index) { return (value ^ (index * 2654435761u)) + (index << 1); }

extern "C" __global__ void nvrtc_mix(const unsigned* in, unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix<unsigned>(in[i], i);
}
)";

constexpr unsigned mix(unsigned value, unsigned index) { return (value ^ (index * 2654435761u)) + (index << 1); }

struct Nvrtc {
  int (*create)(Program*, const char*, const char*, int, const char* const*, const char* const*);
  int (*destroy)(Program*);
  int (*compile)(Program, int, const char* const*);
  int (*log_size)(Program, std::size_t*);
  int (*log)(Program, char*);
  int (*ptx_size)(Program, std::size_t*);
  int (*ptx)(Program, char*);
};

// The highest architecture this NVRTC compiles for that the device can run: what PyTorch's JIT
// picks. Older NVRTC (before CUDA 11.2) cannot list them; the device's own is asked for then.
int choose_arch(const Library& lib, int cc, Report& report) {
  auto count_fn = reinterpret_cast<int (*)(int*)>(lib.symbol("nvrtcGetNumSupportedArchs"));
  auto list_fn = reinterpret_cast<int (*)(int*)>(lib.symbol("nvrtcGetSupportedArchs"));
  if (count_fn == nullptr || list_fn == nullptr) return cc;
  int count = 0;
  check_status(Api::nvrtc, "nvrtcGetNumSupportedArchs", count_fn(&count));
  std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) check_status(Api::nvrtc, "nvrtcGetSupportedArchs", list_fn(archs.data()));
  int best = 0;
  std::string listed;
  for (int a : archs) {
    listed += (listed.empty() ? "" : ",") + std::to_string(a);
    if (a <= cc && a > best) best = a;
  }
  report.metrics.str("supported_archs", listed);
  if (best == 0) {
    throw Stop{Status::unsupported,
               "this NVRTC compiles for no architecture at or below the device's compute capability " + std::to_string(cc / 10) + "." +
                   std::to_string(cc % 10) + " (it offers " + listed + ")",
               std::nullopt};
  }
  return best;
}

}  // namespace

void check_nvrtc_compile(Report& report) {
  Library lib = require_library(report, "nvrtc");
  Driver d = open_driver(report);
  const Nvrtc api{require_symbol<decltype(Nvrtc::create)>(lib, "nvrtcCreateProgram"),
                  require_symbol<decltype(Nvrtc::destroy)>(lib, "nvrtcDestroyProgram"),
                  require_symbol<decltype(Nvrtc::compile)>(lib, "nvrtcCompileProgram"),
                  require_symbol<decltype(Nvrtc::log_size)>(lib, "nvrtcGetProgramLogSize"),
                  require_symbol<decltype(Nvrtc::log)>(lib, "nvrtcGetProgramLog"),
                  require_symbol<decltype(Nvrtc::ptx_size)>(lib, "nvrtcGetPTXSize"),
                  require_symbol<decltype(Nvrtc::ptx)>(lib, "nvrtcGetPTX")};
  if (auto version = reinterpret_cast<int (*)(int*, int*)>(lib.symbol("nvrtcVersion"))) {
    int major = 0, minor = 0;
    if (version(&major, &minor) == 0) report.metrics.str("nvrtc_version", std::to_string(major) + "." + std::to_string(minor));
  }
  const int cc = compute_capability(d);
  const int arch = choose_arch(lib, cc, report);
  const std::string option = "--gpu-architecture=compute_" + std::to_string(arch);
  report.metrics.integer("compute_capability", cc).str("arch_option", option);

  Program program = nullptr;
  check_status(Api::nvrtc, "nvrtcCreateProgram", api.create(&program, kSource, "zcuda_probe_nvrtc.cu", 0, nullptr, nullptr));
  struct Destroy {
    const Nvrtc& api;
    Program& p;
    ~Destroy() {
      if (p) api.destroy(&p);
    }
  } destroy{api, program};
  const char* options[] = {option.c_str()};
  const auto start = std::chrono::steady_clock::now();
  const int rc = api.compile(program, 1, options);
  report.metrics.num("compile_ms", seconds_since(start) * 1000.0);
  if (rc != 0) {
    std::size_t size = 0;
    std::string log;
    if (api.log_size(program, &size) == 0 && size > 1) {
      log.resize(size);
      api.log(program, log.data());
      log.resize(std::min<std::size_t>(size - 1, 1500));
    }
    try {
      check_status(Api::nvrtc, "nvrtcCompileProgram", rc);
    } catch (Stop& stop) {
      stop.detail += " with " + option + (log.empty() ? "" : "; log: " + log);
      throw;
    }
  }
  std::size_t ptx_size = 0;
  check_status(Api::nvrtc, "nvrtcGetPTXSize", api.ptx_size(program, &ptx_size));
  std::string ptx(ptx_size, '\0');
  check_status(Api::nvrtc, "nvrtcGetPTX", api.ptx(program, ptx.data()));
  report.metrics.integer("ptx_bytes", static_cast<long long>(ptx_size));

  CUmodule module = nullptr;
  check_status(Api::cuda, "cuModuleLoadDataEx (NVRTC's PTX)", d.cuModuleLoadDataEx(&module, ptx.c_str(), 0, nullptr, nullptr));
  struct Unload {
    const Driver& d;
    CUmodule m;
    ~Unload() { d.cuModuleUnload(m); }
  } unload{d, module};
  CUfunction kernel = nullptr;
  check_status(Api::cuda, "cuModuleGetFunction", d.cuModuleGetFunction(&kernel, module, "nvrtc_mix"));

  constexpr unsigned kCount = 1u << 16;
  ref::Lcg rng(191);
  std::vector<std::uint32_t> in(kCount);
  for (auto& v : in) v = rng.next_u32();
  DeviceBuffer din(d, kCount * 4), dout(d, kCount * 4);
  din.upload(std::span<const std::uint32_t>(in));
  CUdeviceptr pin = din.get(), pout = dout.get();
  unsigned n = kCount;
  void* params[] = {&pin, &pout, &n};
  check_status(Api::cuda, "cuLaunchKernel", d.cuLaunchKernel(kernel, kCount / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto out = dout.download<std::uint32_t>(kCount);
  std::size_t wrong = 0;
  for (unsigned i = 0; i < kCount; ++i) wrong += out[i] != mix(in[i], i);
  report.metrics.integer("mismatched", static_cast<long long>(wrong));
  if (wrong != 0) throw Stop{Status::fail, std::to_string(wrong) + " of 65536 results of the NVRTC-compiled kernel are wrong", std::nullopt};
  report.status = Status::pass;
  report.detail = "compiled with " + option + ", " + std::to_string(ptx_size) + " bytes of PTX loaded; 65536 results exact";
}

}  // namespace zcuda::probe
