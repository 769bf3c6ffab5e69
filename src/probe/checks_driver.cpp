// driver.*: the CUDA driver API alone (libcuda.so.1 / nvcuda.dll).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "ptx_kernels.hpp"
#include "ptx_module.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

float elapsed_ms(const Driver& d, const Event& start, const Event& end) {
  check_status(Api::cuda, "cuEventSynchronize", d.cuEventSynchronize(end.get()));
  float ms = 0;
  check_status(Api::cuda, "cuEventElapsedTime", d.cuEventElapsedTime(&ms, start.get(), end.get()));
  return ms;
}

}  // namespace

void check_driver_init(Report& report) {
  Driver d = open_driver(report);
  int version = 0, count = 0;
  check_status(Api::cuda, "cuDriverGetVersion", d.cuDriverGetVersion(&version));
  check_status(Api::cuda, "cuDeviceGetCount", d.cuDeviceGetCount(&count));
  json::Array devices;
  for (int i = 0; i < count && i < 64; ++i) {
    CUdevice dev = 0;
    check_status(Api::cuda, "cuDeviceGet", d.cuDeviceGet(&dev, i));
    char name[256] = {};
    check_status(Api::cuda, "cuDeviceGetName", d.cuDeviceGetName(name, static_cast<int>(sizeof name) - 1, dev));
    int major = 0, minor = 0, sms = 0;
    check_status(Api::cuda, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, dev));
    check_status(Api::cuda, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, dev));
    check_status(Api::cuda, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&sms, kAttrMultiprocessorCount, dev));
    std::size_t memory = 0;
    check_status(Api::cuda, "cuDeviceTotalMem_v2", d.cuDeviceTotalMem_v2(&memory, dev));
    json::Object o;
    o.integer("ordinal", i)
        .str("name", name)
        .str("compute_capability", std::to_string(major) + "." + std::to_string(minor))
        .integer("multiprocessors", sms)
        .integer("memory_bytes", static_cast<long long>(memory));
    devices.raw(o.text());
  }
  report.metrics.integer("driver_version", version).integer("device_count", count).raw("devices", devices.text());
  report.status = Status::pass;
  report.detail = std::to_string(count) + " device(s); driver API " + std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10) +
                  "; device 0: " + report.device;
}

void check_driver_memory(Report& report) {
  Driver d = open_driver(report);
  constexpr std::size_t kBytes = 64u << 20;
  constexpr int kRepeats = 3;
  PinnedBuffer source(d, kBytes), target(d, kBytes);
  ref::Lcg rng(0x5eed0001);
  for (std::size_t i = 0; i + 4 <= kBytes; i += 4) {
    const std::uint32_t v = rng.next_u32();
    std::memcpy(source.data() + i, &v, 4);
  }
  std::memset(target.data(), 0, kBytes);
  DeviceBuffer device(d, kBytes);

  // Best of a few timed copies after one untimed round trip (first-touch costs are not bandwidth).
  auto timed = [&](auto&& copy) {
    double best = 1e30;
    for (int i = 0; i < kRepeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      copy();
      check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
      best = std::min(best, seconds_since(start));
    }
    return best;
  };
  check_status(Api::cuda, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD_v2(device.get(), source.data(), kBytes));
  check_status(Api::cuda, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH_v2(target.data(), device.get(), kBytes));
  if (std::memcmp(source.data(), target.data(), kBytes) != 0) {
    throw Stop{Status::fail, "the 64 MiB pattern came back from the device changed", std::nullopt};
  }
  std::memset(target.data(), 0, kBytes);
  const double h2d = timed([&] { check_status(Api::cuda, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD_v2(device.get(), source.data(), kBytes)); });
  const double d2h = timed([&] { check_status(Api::cuda, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH_v2(target.data(), device.get(), kBytes)); });
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < kBytes; ++i) mismatched += source.data()[i] != target.data()[i];
  report.metrics.integer("bytes", static_cast<long long>(kBytes)).integer("mismatched_bytes", static_cast<long long>(mismatched));
  const double h2d_gbps = static_cast<double>(kBytes) / h2d / 1e9;
  const double d2h_gbps = static_cast<double>(kBytes) / d2h / 1e9;
  report.metrics.num("host_to_device_gb_per_s", h2d_gbps).num("device_to_host_gb_per_s", d2h_gbps);
  if (mismatched != 0) {
    throw Stop{Status::fail, std::to_string(mismatched) + " of 64 MiB bytes differ after the round trip", std::nullopt};
  }
  char text[160];
  std::snprintf(text, sizeof text, "64 MiB identical after the round trip; pinned host to device %.1f GB/s, device to host %.1f GB/s", h2d_gbps,
                d2h_gbps);
  report.status = Status::pass;
  report.detail = text;
}

void check_driver_kernel(Report& report) {
  Driver d = open_driver(report);
  constexpr unsigned kCount = 1u << 20;
  ref::Lcg rng(0x5eed0002);
  std::vector<float> a(kCount), b(kCount);
  for (unsigned i = 0; i < kCount; ++i) {
    a[i] = rng.unit();
    b[i] = rng.unit();
  }
  DeviceBuffer da(d, kCount * 4), db(d, kCount * 4), dc(d, kCount * 4);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));

  // The first load on ZLUDA compiles PTX to the AMD ISA and can take seconds; it is timed.
  PtxModule module(d, ptx::kVadd, "vadd");
  CUfunction function = module.function("vadd");
  const double jit_seconds = module.jit_seconds();
  std::string used_header = module.header();

  unsigned n = kCount;
  CUdeviceptr pa = da.get(), pb = db.get(), pc = dc.get();
  void* params[] = {&pa, &pb, &pc, &n};
  Event start(d), end(d);
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(start.get(), nullptr));
  check_status(Api::cuda, "cuLaunchKernel", d.cuLaunchKernel(function, (kCount + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(end.get(), nullptr));
  const float kernel_ms = elapsed_ms(d, start, end);
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto c = dc.download<float>(kCount);

  // IEEE 754 addition is correctly rounded, so the device must produce the CPU's float sum bit
  // for bit; the double reference then shows the size of any difference.
  std::vector<double> expected(kCount);
  std::size_t mismatched = 0;
  for (unsigned i = 0; i < kCount; ++i) {
    const float sum = a[i] + b[i];
    expected[i] = sum;
    mismatched += std::memcmp(&sum, &c[i], 4) != 0;
  }
  report.metrics.str("ptx_header", used_header)
      .num("jit_seconds", jit_seconds)
      .num("kernel_ms", kernel_ms)
      .integer("elements", kCount)
      .integer("mismatched", static_cast<long long>(mismatched));
  if (!module.first_failure().empty()) report.metrics.str("first_attempt", module.first_failure());
  require_within(report, "max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(c)), 0.0);
  char text[200];
  std::snprintf(text, sizeof text, "vadd over %u floats bit-exact (PTX %s); JIT %.3f s, kernel %.3f ms", kCount, used_header.c_str(), jit_seconds,
                static_cast<double>(kernel_ms));
  report.status = Status::pass;
  report.detail = text;
}

void check_driver_stream(Report& report) {
  Driver d = open_driver(report);
  constexpr std::size_t kChunks = 8, kChunk = 4u << 20, kBytes = kChunks * kChunk;
  PinnedBuffer source(d, kBytes), target(d, kBytes);
  ref::Lcg rng(0x5eed0003);
  for (std::size_t i = 0; i < kBytes; ++i) source.data()[i] = static_cast<unsigned char>(rng.next_u32() >> 24);
  std::memset(target.data(), 0, kBytes);
  DeviceBuffer device(d, kBytes);

  Stream s0(d), s1(d);
  const Stream* streams[] = {&s0, &s1};
  Event start0(d), end0(d), start1(d), end1(d);
  const auto wall_start = std::chrono::steady_clock::now();
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(start0.get(), s0.get()));
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(start1.get(), s1.get()));
  // Each chunk goes up and comes back on its own stream: ordering within a stream is what makes
  // the round trip correct, while the two streams may overlap.
  for (std::size_t i = 0; i < kChunks; ++i) {
    CUstream s = streams[i % 2]->get();
    const std::size_t offset = i * kChunk;
    check_status(Api::cuda, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync_v2(device.get() + offset, source.data() + offset, kChunk, s));
    check_status(Api::cuda, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync_v2(target.data() + offset, device.get() + offset, kChunk, s));
  }
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(end0.get(), s0.get()));
  check_status(Api::cuda, "cuEventRecord", d.cuEventRecord(end1.get(), s1.get()));
  const float ms0 = elapsed_ms(d, start0, end0);
  const float ms1 = elapsed_ms(d, start1, end1);
  check_status(Api::cuda, "cuStreamSynchronize", d.cuStreamSynchronize(s0.get()));
  check_status(Api::cuda, "cuStreamSynchronize", d.cuStreamSynchronize(s1.get()));
  const double wall_ms = seconds_since(wall_start) * 1000.0;

  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < kBytes; ++i) mismatched += source.data()[i] != target.data()[i];
  report.metrics.integer("bytes", static_cast<long long>(kBytes))
      .num("stream0_ms", ms0)
      .num("stream1_ms", ms1)
      .num("host_wall_ms", wall_ms)
      .integer("mismatched_bytes", static_cast<long long>(mismatched));
  if (mismatched != 0) {
    throw Stop{Status::fail, std::to_string(mismatched) + " bytes differ after the asynchronous round trip", std::nullopt};
  }
  if (!(ms0 > 0 && ms1 > 0) || !std::isfinite(ms0) || !std::isfinite(ms1)) {
    throw Stop{Status::fail, "event timing reported a non-positive or non-finite duration", std::nullopt};
  }
  char text[200];
  std::snprintf(text, sizeof text, "32 MiB in 8 chunks on 2 streams identical; events %.3f ms and %.3f ms, host %.3f ms", static_cast<double>(ms0),
                static_cast<double>(ms1), wall_ms);
  report.status = Status::pass;
  report.detail = text;
}

}  // namespace zcuda::probe
