// driver.*: the CUDA driver API alone (libcuda.so.1 / nvcuda.dll).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

// A vector add in PTX text (ZLUDA consumes only PTX, never SASS). The header is filled in: the
// low one first (any driver since CUDA 9 accepts it), sm_75 as the fallback for drivers that
// dropped the old targets.
constexpr const char* kVaddBody = R"(
.address_size 64

.visible .entry vadd(
	.param .u64 a,
	.param .u64 b,
	.param .u64 c,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<4>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<11>;

	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd4, %rd7;
	add.s64 %rd9, %rd5, %rd7;
	add.s64 %rd10, %rd6, %rd7;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd9];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}
)";

constexpr const char* kPtxHeaders[] = {".version 6.0\n.target sm_50\n", ".version 6.3\n.target sm_75\n"};

// Codes a driver gives for PTX it cannot take: retry with the other header.
bool is_ptx_rejection(int code) { return code == 209 || code == 218 || code == 222; }

class Event {
 public:
  explicit Event(const Driver& d) : d_(d) { check_status(Api::cuda, "cuEventCreate", d_.cuEventCreate(&e_, 0)); }
  ~Event() {
    if (e_) d_.cuEventDestroy_v2(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return e_; }

 private:
  const Driver& d_;
  CUevent e_ = nullptr;
};

class Stream {
 public:
  explicit Stream(const Driver& d) : d_(d) { check_status(Api::cuda, "cuStreamCreate", d_.cuStreamCreate(&s_, 0)); }
  ~Stream() {
    if (s_) d_.cuStreamDestroy_v2(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return s_; }

 private:
  const Driver& d_;
  CUstream s_ = nullptr;
};

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
  report.detail = std::to_string(count) + " device(s); driver API " + std::to_string(version / 1000) + "." +
                  std::to_string((version % 1000) / 10) + "; device 0: " + report.device;
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
  std::snprintf(text, sizeof text, "64 MiB identical after the round trip; pinned host to device %.1f GB/s, device to host %.1f GB/s",
                h2d_gbps, d2h_gbps);
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
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string log, used_header, first_failure;
  const char* call = "";
  int rc = 0;
  const auto jit_start = std::chrono::steady_clock::now();
  for (const char* header : kPtxHeaders) {
    const std::string ptx = std::string(header) + kVaddBody;
    char error_log[4096] = {};
    int options[] = {5 /*CU_JIT_ERROR_LOG_BUFFER*/, 6 /*CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES*/};
    void* values[] = {error_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof error_log))};
    call = "cuModuleLoadDataEx";
    rc = d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (rc == 0) {
      // ZLUDA release builds load a PTX they cannot parse as an empty module: the failure shows here.
      call = "cuModuleGetFunction";
      rc = d.cuModuleGetFunction(&function, module, "vadd");
      if (rc != 0) d.cuModuleUnload(module);
    }
    if (rc == 0) {
      used_header = header;
      break;
    }
    log = error_log;
    if (first_failure.empty()) first_failure = std::string(call) + " " + std::to_string(rc) + " " + status_name(Api::cuda, rc);
    if (call == std::string_view("cuModuleLoadDataEx") && !is_ptx_rejection(rc)) break;  // not about the PTX dialect
  }
  if (rc != 0) {
    try {
      check_status(Api::cuda, call, rc);
    } catch (Stop& stop) {
      stop.detail += "; first attempt: " + first_failure + (log.empty() ? "" : "; JIT log: " + log);
      throw;
    }
  }
  const double jit_seconds = seconds_since(jit_start);

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
  d.cuModuleUnload(module);

  // IEEE 754 addition is correctly rounded, so the device must produce the CPU's float sum bit
  // for bit; the double reference then shows the size of any difference.
  std::vector<double> expected(kCount);
  std::size_t mismatched = 0;
  for (unsigned i = 0; i < kCount; ++i) {
    const float sum = a[i] + b[i];
    expected[i] = sum;
    mismatched += std::memcmp(&sum, &c[i], 4) != 0;
  }
  std::replace(used_header.begin(), used_header.end(), '\n', ' ');
  while (!used_header.empty() && used_header.back() == ' ') used_header.pop_back();
  report.metrics.str("ptx_header", used_header)
      .num("jit_seconds", jit_seconds)
      .num("kernel_ms", kernel_ms)
      .integer("elements", kCount)
      .integer("mismatched", static_cast<long long>(mismatched));
  if (!first_failure.empty()) report.metrics.str("first_attempt", first_failure);
  require_within(report, "max_abs_error", ref::max_abs_error(std::span<const double>(expected), std::span<const float>(c)), 0.0);
  char text[200];
  std::snprintf(text, sizeof text, "vadd over %u floats bit-exact (PTX %s); JIT %.3f s, kernel %.3f ms", kCount,
                used_header.c_str(), jit_seconds, static_cast<double>(kernel_ms));
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
  std::snprintf(text, sizeof text, "32 MiB in 8 chunks on 2 streams identical; events %.3f ms and %.3f ms, host %.3f ms",
                static_cast<double>(ms0), static_cast<double>(ms1), wall_ms);
  report.status = Status::pass;
  report.detail = text;
}

}  // namespace zcuda::probe
