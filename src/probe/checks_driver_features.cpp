// driver.launch_ex, driver.func_attributes, driver.multi_ptx, driver.graph, driver.memset: driver
// features particular applications rely on, beyond a plain launch (llama.cpp, CUB and Thrust,
// applications shipping fat binaries, PyTorch's CUDA graphs, every framework's zero fill).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "fatbin.hpp"
#include "ptx_kernels.hpp"
#include "ptx_module.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

// cuda.h (CUDA 12.0+): CUlaunchAttribute is an id padded to 8 bytes and a 64-byte value union.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int cooperative;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72);

struct LaunchConfig {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  CUstream stream;
  LaunchAttribute* attrs;
  unsigned attr_count;
};
static_assert(sizeof(LaunchConfig) == 56);

constexpr int kLaunchAttributeCooperative = 2;
constexpr int kFuncAttrSharedSizeBytes = 1, kFuncAttrPtxVersion = 5, kFuncAttrBinaryVersion = 6, kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr unsigned kStreamNonBlocking = 1;

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// Random multiples of 2^-24 in [0, 1): their float sums are exact to compare bit for bit.
std::vector<float> unit_floats(std::size_t count, std::uint64_t seed) {
  ref::Lcg rng(seed);
  std::vector<float> v(count);
  for (auto& x : v) x = rng.unit();
  return v;
}

std::size_t count_float_mismatches(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const float sum = a[i] + b[i];
    wrong += std::memcmp(&sum, &c[i], 4) != 0;
  }
  return wrong;
}

}  // namespace

void check_driver_launch_ex(Report& report) {
  Driver d = open_driver(report);
  using LaunchEx = CUresult (*)(const LaunchConfig*, CUfunction, void**, void**);
  auto launch_ex = require_symbol<LaunchEx>(d.lib, "cuLaunchKernelEx");
  PtxModule module(d, ptx::kFeatures, "vadd");
  CUfunction vadd = module.function("vadd");

  constexpr unsigned kCount = 1u << 16;
  const auto a = unit_floats(kCount, 71), b = unit_floats(kCount, 72);
  DeviceBuffer da(d, kCount * 4), db(d, kCount * 4), dc(d, kCount * 4);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  CUdeviceptr pa = da.get(), pb = db.get(), pc = dc.get();
  unsigned n = kCount;
  void* params[] = {&pa, &pb, &pc, &n};

  // Plain first, so "cuLaunchKernelEx works, but not with attributes" can be told from "it does
  // not work at all".
  auto run = [&](LaunchAttribute* attrs, unsigned count) -> std::pair<int, std::size_t> {
    const std::vector<float> zeros(kCount, 0.0f);
    dc.upload(std::span<const float>(zeros));
    LaunchConfig config{(kCount + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, attrs, count};
    const int rc = launch_ex(&config, vadd, params, nullptr);
    if (rc != 0) return {rc, 0};
    check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
    return {0, count_float_mismatches(a, b, dc.download<float>(kCount))};
  };
  const auto plain = run(nullptr, 0);
  if (plain.first != 0) check_status(Api::cuda, "cuLaunchKernelEx (no attributes)", plain.first);
  report.metrics.integer("plain_mismatched", static_cast<long long>(plain.second));
  if (plain.second != 0) {
    throw Stop{Status::fail, "cuLaunchKernelEx without attributes: " + std::to_string(plain.second) + " of 65536 sums wrong", std::nullopt};
  }

  LaunchAttribute cooperative{};
  cooperative.id = kLaunchAttributeCooperative;
  cooperative.value.cooperative = 0;
  const auto with_attribute = run(&cooperative, 1);
  if (with_attribute.first != 0) {
    try {
      check_status(Api::cuda, "cuLaunchKernelEx (CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 0)", with_attribute.first);
    } catch (Stop& stop) {
      stop.detail +=
          "; the same launch without attributes works. Applications that pass launch attributes "
          "(llama.cpp sets COOPERATIVE = 0) fail here";
      throw;
    }
  }
  report.metrics.integer("attribute_mismatched", static_cast<long long>(with_attribute.second));
  if (with_attribute.second != 0) {
    throw Stop{Status::fail,
               "cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 0: " + std::to_string(with_attribute.second) + " of 65536 sums wrong",
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "cuLaunchKernelEx without attributes and with CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 0: 65536 sums bit-exact";
}

void check_driver_func_attributes(Report& report) {
  Driver d = open_driver(report);
  using GetAttribute = CUresult (*)(int*, int, CUfunction);
  using SetAttribute = CUresult (*)(CUfunction, int, int);
  auto get_attribute = require_symbol<GetAttribute>(d.lib, "cuFuncGetAttribute");
  auto set_attribute = require_symbol<SetAttribute>(d.lib, "cuFuncSetAttribute");
  PtxModule module(d, ptx::kFeatures, "reverse_shared");
  CUfunction kernel = module.function("reverse_shared");
  const int cc = compute_capability(d);

  int ptx_version = 0, binary_version = 0, static_shared = 0, optin = 0;
  check_status(Api::cuda, "cuFuncGetAttribute (PTX_VERSION)", get_attribute(&ptx_version, kFuncAttrPtxVersion, kernel));
  check_status(Api::cuda, "cuFuncGetAttribute (BINARY_VERSION)", get_attribute(&binary_version, kFuncAttrBinaryVersion, kernel));
  check_status(Api::cuda, "cuFuncGetAttribute (SHARED_SIZE_BYTES)", get_attribute(&static_shared, kFuncAttrSharedSizeBytes, kernel));
  check_status(Api::cuda, "cuDeviceGetAttribute (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
               d.cuDeviceGetAttribute(&optin, kAttrMaxSharedMemoryPerBlockOptin, d.device));
  report.metrics.str("ptx_header", module.header())
      .integer("ptx_version", ptx_version)
      .integer("binary_version", binary_version)
      .integer("compute_capability", cc)
      .integer("static_shared_bytes", static_shared)
      .integer("optin_shared_bytes", optin);

  // Wrong version numbers are wrong answers: CUB and Thrust choose their kernels by the PTX
  // version, and the binary version must name the architecture the code was built for.
  std::vector<std::string> problems;
  if (ptx_version != module.target_sm()) {
    problems.push_back("CU_FUNC_ATTRIBUTE_PTX_VERSION is " + std::to_string(ptx_version) + ", but the function comes from PTX for sm_" +
                       std::to_string(module.target_sm()));
  }
  if (binary_version != cc) {
    problems.push_back("CU_FUNC_ATTRIBUTE_BINARY_VERSION is " + std::to_string(binary_version) + ", but the device reports compute capability " +
                       std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  }

  // The opt-in limit, used to the last byte: attention kernels (FlashAttention) need more than
  // the default 48 KiB and ask for it this way.
  const int dynamic = optin - static_shared;
  if (dynamic <= 0) throw Stop{Status::error, "the device reports no opt-in shared memory (" + std::to_string(optin) + " bytes)", std::nullopt};
  check_status(Api::cuda, "cuFuncSetAttribute (MAX_DYNAMIC_SHARED_SIZE_BYTES)", set_attribute(kernel, kFuncAttrMaxDynamicSharedSizeBytes, dynamic));
  int granted = 0;
  check_status(Api::cuda, "cuFuncGetAttribute (MAX_DYNAMIC_SHARED_SIZE_BYTES)", get_attribute(&granted, kFuncAttrMaxDynamicSharedSizeBytes, kernel));
  report.metrics.integer("dynamic_shared_bytes_granted", granted);
  if (granted != dynamic) {
    problems.push_back("MAX_DYNAMIC_SHARED_SIZE_BYTES reads " + std::to_string(granted) + " after being set to " + std::to_string(dynamic));
  }
  const unsigned words = static_cast<unsigned>(dynamic) / 4;
  DeviceBuffer out(d, std::size_t{words} * 4);
  CUdeviceptr out_ptr = out.get();
  unsigned count = words;
  void* params[] = {&out_ptr, &count};
  check_status(Api::cuda, "cuLaunchKernel (dynamic shared memory at the opt-in limit)",
               d.cuLaunchKernel(kernel, 1, 1, 1, 256, 1, 1, words * 4, nullptr, params, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = out.download<std::uint32_t>(words);
  std::size_t wrong = 0;
  for (unsigned i = 0; i < words; ++i) wrong += got[i] != ptx::shared_pattern(words - 1 - i);
  report.metrics.integer("shared_words_wrong", static_cast<long long>(wrong));
  if (wrong != 0) problems.push_back(std::to_string(wrong) + " of " + std::to_string(words) + " words of dynamic shared memory came back wrong");

  if (!problems.empty()) throw Stop{Status::fail, join(problems), std::nullopt};
  report.status = Status::pass;
  report.detail = "PTX version " + std::to_string(ptx_version) + ", binary version " + std::to_string(binary_version) + "; " +
                  std::to_string(dynamic) + " bytes of opt-in dynamic shared memory used and read back";
}

void check_driver_multi_ptx(Report& report) {
  Driver d = open_driver(report);
  const int cc = compute_capability(d);
  std::vector<PtxImage> images;
  std::vector<int> targets;
  std::string order;
  for (const auto& image : ptx::kTargetImages) {
    images.push_back({image.sm, image.ptx_major, image.ptx_minor, ptx::which_ptx_text(image)});
    targets.push_back(image.sm);
    order += (order.empty() ? "sm_" : ", sm_") + std::to_string(image.sm);
  }
  const int expected = ptx_target_for(cc, targets);
  report.metrics.integer("compute_capability", cc).str("image_order", order).integer("expected_target", expected);
  if (expected == 0) {
    throw Stop{Status::unsupported,
               "compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10) + " is below every image (the lowest is sm_50)",
               std::nullopt};
  }
  const auto fatbin = build_ptx_fatbin(images, built_for_windows());

  // cuModuleLoadData takes the fat binary as nvcc writes it (NVIDIA); ZLUDA reads fat binaries
  // only inside the wrapper that __cudaRegisterFatBinary receives. Both forms are real; the one
  // that loaded is reported.
  struct Wrapper {
    std::uint32_t magic, version;
    const void* data;
    const void* filename_or_fatbins;
  } wrapper{kFatbinWrapperMagic, 1, fatbin.data(), nullptr};
  CUmodule module = nullptr;
  const char* form = "fat binary";
  int rc = d.cuModuleLoadDataEx(&module, fatbin.data(), 0, nullptr, nullptr);
  std::string first_failure;
  if (rc != 0) {
    first_failure = "as a fat binary: " + std::to_string(rc) + " " + status_name(Api::cuda, rc);
    form = "wrapped fat binary";
    rc = d.cuModuleLoadDataEx(&module, &wrapper, 0, nullptr, nullptr);
  }
  if (rc != 0) {
    try {
      check_status(Api::cuda, "cuModuleLoadDataEx (wrapped fat binary)", rc);
    } catch (Stop& stop) {
      stop.detail += "; " + first_failure;
      throw;
    }
  }
  struct Unload {
    const Driver& d;
    CUmodule m;
    ~Unload() { d.cuModuleUnload(m); }
  } unload{d, module};
  report.metrics.str("image_form", form);
  if (!first_failure.empty()) report.metrics.str("first_attempt", first_failure);

  CUfunction which = nullptr;
  check_status(Api::cuda, "cuModuleGetFunction", d.cuModuleGetFunction(&which, module, "which_ptx"));
  constexpr unsigned kThreads = 64;
  DeviceBuffer out(d, kThreads * 4);
  CUdeviceptr out_ptr = out.get();
  void* params[] = {&out_ptr};
  check_status(Api::cuda, "cuLaunchKernel", d.cuLaunchKernel(which, 1, 1, 1, kThreads, 1, 1, 0, nullptr, params, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = out.download<std::uint32_t>(kThreads);
  const auto chosen = static_cast<int>(got[0]);
  report.metrics.integer("chosen_target", chosen);
  for (unsigned t = 0; t < kThreads; ++t) {
    if (got[t] != static_cast<std::uint32_t>(chosen) + 1000u * t) {
      throw Stop{Status::fail, "the kernel's output is not one image's: thread " + std::to_string(t) + " wrote " + std::to_string(got[t]),
                 std::nullopt};
    }
  }
  const std::string ccs = std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  if (chosen != expected) {
    throw Stop{Status::fail,
               "the sm_" + std::to_string(chosen) + " image ran; for compute capability " + ccs + " CUDA runs sm_" + std::to_string(expected) +
                   ", the highest PTX target not above the device (images: " + order + ")",
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "the sm_" + std::to_string(chosen) + " image of five PTX targets ran on compute capability " + ccs + " (loaded as a " + form + ")";
}

void check_driver_graph(Report& report) {
  Driver d = open_driver(report);
  using CUgraph = void*;
  using CUgraphExec = void*;
  // cuStreamBeginCapture is #defined to _v2 (with a capture mode) since CUDA 10.1, and
  // cuGraphInstantiate to cuGraphInstantiateWithFlags since CUDA 12: the unversioned exports keep
  // older signatures, so the names applications built with CUDA 12/13 call are resolved.
  auto begin_capture = require_symbol<CUresult (*)(CUstream, int)>(d.lib, "cuStreamBeginCapture_v2");
  auto end_capture = require_symbol<CUresult (*)(CUstream, CUgraph*)>(d.lib, "cuStreamEndCapture");
  auto instantiate = require_symbol<CUresult (*)(CUgraphExec*, CUgraph, unsigned long long)>(d.lib, "cuGraphInstantiateWithFlags");
  auto launch = require_symbol<CUresult (*)(CUgraphExec, CUstream)>(d.lib, "cuGraphLaunch");
  auto exec_destroy = require_symbol<CUresult (*)(CUgraphExec)>(d.lib, "cuGraphExecDestroy");
  auto graph_destroy = require_symbol<CUresult (*)(CUgraph)>(d.lib, "cuGraphDestroy");
  PtxModule module(d, ptx::kFeatures, "axpy");
  CUfunction axpy = module.function("axpy");

  // x in multiples of 1/64, y integers: every partial result is exact in float, so six
  // applications of y += 0.5·x give exactly y + 3·x whatever the hardware's rounding.
  constexpr unsigned kCount = 1u << 16;
  ref::Lcg rng(81);
  std::vector<float> x(kCount), y(kCount);
  for (auto& v : x) v = rng.sixty_fourths();
  for (auto& v : y) v = static_cast<float>(static_cast<int>(rng.below(17)) - 8);
  DeviceBuffer dx(d, kCount * 4), dy(d, kCount * 4);
  dx.upload(std::span<const float>(x));
  dy.upload(std::span<const float>(y));

  Stream stream(d, kStreamNonBlocking);  // the legacy stream cannot be captured
  float alpha = 0.5f;
  CUdeviceptr px = dx.get(), py = dy.get();
  unsigned n = kCount;
  void* params[] = {&alpha, &px, &py, &n};
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  struct Cleanup {
    decltype(exec_destroy) destroy_exec;
    decltype(graph_destroy) destroy_graph;
    CUgraphExec& exec;
    CUgraph& graph;
    ~Cleanup() {
      if (exec) destroy_exec(exec);
      if (graph) destroy_graph(graph);
    }
  } cleanup{exec_destroy, graph_destroy, exec, graph};

  check_status(Api::cuda, "cuStreamBeginCapture_v2", begin_capture(stream.get(), 0 /*CU_STREAM_CAPTURE_MODE_GLOBAL*/));
  for (int i = 0; i < 2; ++i) {
    const int rc = d.cuLaunchKernel(axpy, (kCount + 255) / 256, 1, 1, 256, 1, 1, 0, stream.get(), params, nullptr);
    if (rc != 0) {
      CUgraph abandoned = nullptr;
      end_capture(stream.get(), &abandoned);
      if (abandoned) graph_destroy(abandoned);
      check_status(Api::cuda, "cuLaunchKernel (while capturing)", rc);
    }
  }
  check_status(Api::cuda, "cuStreamEndCapture", end_capture(stream.get(), &graph));
  if (graph == nullptr) throw Stop{Status::fail, "cuStreamEndCapture succeeded but returned no graph", std::nullopt};
  // Capturing records work; it must not run it.
  check_status(Api::cuda, "cuStreamSynchronize", d.cuStreamSynchronize(stream.get()));
  const auto after_capture = dy.download<float>(kCount);
  if (std::memcmp(after_capture.data(), y.data(), kCount * 4) != 0) {
    throw Stop{Status::fail, "the captured kernels ran during capture: y changed before the graph was launched", std::nullopt};
  }
  check_status(Api::cuda, "cuGraphInstantiateWithFlags", instantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) check_status(Api::cuda, "cuGraphLaunch", launch(exec, stream.get()));
  check_status(Api::cuda, "cuStreamSynchronize", d.cuStreamSynchronize(stream.get()));
  const auto got = dy.download<float>(kCount);
  std::size_t wrong = 0;
  for (unsigned i = 0; i < kCount; ++i) wrong += got[i] != y[i] + 3.0f * x[i];
  report.metrics.integer("elements", kCount).integer("mismatched", static_cast<long long>(wrong));
  if (wrong != 0) {
    throw Stop{Status::fail, std::to_string(wrong) + " of 65536 elements differ from two kernels replayed three times (y + 6·0.5·x)", std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "two kernels captured (nothing ran), instantiated, replayed three times: 65536 elements exact";
}

void check_driver_memset(Report& report) {
  Driver d = open_driver(report);
  auto memset32 = require_symbol<CUresult (*)(CUdeviceptr, unsigned, std::size_t)>(d.lib, "cuMemsetD32_v2");
  constexpr std::size_t kWords = 1u << 20, kOffset = 1001, kCount = 123457;
  constexpr std::uint32_t kFill = 0x01020304u, kPatch = 0xCAFEF00Du;
  DeviceBuffer buffer(d, kWords * 4);
  check_status(Api::cuda, "cuMemsetD32_v2", memset32(buffer.get(), kFill, kWords));
  check_status(Api::cuda, "cuMemsetD32_v2 (sub-range)", memset32(buffer.get() + kOffset * 4, kPatch, kCount));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = buffer.download<std::uint32_t>(kWords);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kWords; ++i) wrong += got[i] != (i >= kOffset && i < kOffset + kCount ? kPatch : kFill);
  report.metrics.integer("words", kWords).integer("mismatched_words", static_cast<long long>(wrong));
  if (wrong != 0) throw Stop{Status::fail, std::to_string(wrong) + " of 1048576 words hold the wrong value", std::nullopt};
  report.status = Status::pass;
  report.detail = "4 MiB set to one word, 123457 words at an odd offset to another: every word right";
}

}  // namespace zcuda::probe
