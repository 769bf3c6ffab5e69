// driver.texture, driver.pitch_2d, driver.cache_config, driver.pci_bus_id: the driver calls
// upstream ZLUDA added in later releases (#616 cuMemAllocPitch_v2 and cuMemcpy2D_v2 in
// v6-preview.59, #625 textures in .64, #645 cuDeviceGetPCIBusId in .76, #667 cuCtxSetCacheConfig
// in v7-preview.6), each checked by what it
// computes or reports, not by whether it is exported.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cuda_driver.hpp"
#include "ptx_kernels.hpp"
#include "ptx_module.hpp"
#include "reference.hpp"

namespace zcuda::probe {
namespace {

// cuda.h layouts (64-bit), written out as the rest of the probe's driver API is.
struct ResourceDescLinear {
  int res_type;  // CU_RESOURCE_TYPE_LINEAR = 2
  int pad0;
  CUdeviceptr dev_ptr;
  int format;  // CU_AD_FORMAT_FLOAT = 0x20
  unsigned channels;
  std::size_t size_bytes;
  char rest[128 - 24];  // the union is 128 bytes
  unsigned flags;
  int pad1;
};
static_assert(sizeof(ResourceDescLinear) == 144);

struct TextureDesc {
  int address_mode[3];  // CU_TR_ADDRESS_MODE_CLAMP = 1
  int filter_mode;      // CU_TR_FILTER_MODE_POINT = 0
  unsigned flags;
  unsigned max_anisotropy;
  int mipmap_filter_mode;
  float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
  float border_color[4];
  int reserved[12];
};
static_assert(sizeof(TextureDesc) == 104);

struct Memcpy2D {
  std::size_t src_x_bytes, src_y;
  int src_memory_type;  // CU_MEMORYTYPE_HOST = 1, DEVICE = 2
  const void* src_host;
  CUdeviceptr src_device;
  void* src_array;
  std::size_t src_pitch;
  std::size_t dst_x_bytes, dst_y;
  int dst_memory_type;
  void* dst_host;
  CUdeviceptr dst_device;
  void* dst_array;
  std::size_t dst_pitch;
  std::size_t width_bytes, height;
};
static_assert(sizeof(Memcpy2D) == 128);

constexpr int kMemoryHost = 1, kMemoryDevice = 2;
constexpr int kAttrPciBusId = 33, kAttrPciDeviceId = 34, kAttrPciDomainId = 50;

// Launches vadd over `count` sums and counts the wrong ones (bit for bit: the inputs are exact
// multiples of 2^-24, so every correct sum is one exact float).
std::size_t vadd_mismatches(const Driver& d, CUfunction vadd, unsigned count, std::uint64_t seed) {
  ref::Lcg rng(seed);
  std::vector<float> a(count), b(count);
  for (auto& x : a) x = rng.unit();
  for (auto& x : b) x = rng.unit();
  DeviceBuffer da(d, count * 4), db(d, count * 4), dc(d, count * 4);
  da.upload(std::span<const float>(a));
  db.upload(std::span<const float>(b));
  CUdeviceptr pa = da.get(), pb = db.get(), pc = dc.get();
  unsigned n = count;
  void* params[] = {&pa, &pb, &pc, &n};
  check_status(Api::cuda, "cuLaunchKernel", d.cuLaunchKernel(vadd, (count + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto c = dc.download<float>(count);
  std::size_t wrong = 0;
  for (unsigned i = 0; i < count; ++i) {
    const float sum = a[i] + b[i];
    wrong += std::memcmp(&sum, &c[i], 4) != 0;
  }
  return wrong;
}

}  // namespace

void check_driver_texture(Report& report) {
  Driver d = open_driver(report);
  using Create = CUresult (*)(unsigned long long*, const ResourceDescLinear*, const TextureDesc*, const void*);
  auto create = require_symbol<Create>(d.lib, "cuTexObjectCreate");
  auto destroy = require_symbol<CUresult (*)(unsigned long long)>(d.lib, "cuTexObjectDestroy");
  PtxModule module(d, ptx::kTexFetch, "tex_fetch");
  CUfunction fetch = module.function("tex_fetch");

  constexpr unsigned kCount = 4096;
  ref::Lcg rng(91);
  std::vector<float> texels(kCount);
  for (auto& x : texels) x = rng.symmetric();
  DeviceBuffer source(d, kCount * 4), out(d, kCount * 4);
  source.upload(std::span<const float>(texels));

  ResourceDescLinear resource{};
  resource.res_type = 2;
  resource.dev_ptr = source.get();
  resource.format = 0x20;
  resource.channels = 1;
  resource.size_bytes = kCount * 4;
  TextureDesc texture{};
  texture.address_mode[0] = texture.address_mode[1] = texture.address_mode[2] = 1;
  unsigned long long object = 0;
  check_status(Api::cuda, "cuTexObjectCreate (linear FP32, point filter)", create(&object, &resource, &texture, nullptr));
  struct Destroy {
    decltype(destroy) fn;
    unsigned long long object;
    ~Destroy() { fn(object); }
  } destroy_on_exit{destroy, object};

  CUdeviceptr out_ptr = out.get();
  unsigned n = kCount;
  void* params[] = {&out_ptr, &object, &n};
  check_status(Api::cuda, "cuLaunchKernel (tex.1d fetch)", d.cuLaunchKernel(fetch, kCount / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());
  const auto got = out.download<float>(kCount);
  std::size_t wrong = 0;
  for (unsigned i = 0; i < kCount; ++i) wrong += std::memcmp(&got[i], &texels[i], 4) != 0;
  report.metrics.integer("texels", kCount).integer("mismatched_texels", static_cast<long long>(wrong));
  if (wrong != 0) {
    throw Stop{Status::fail, std::to_string(wrong) + " of 4096 texels fetched through the texture object differ from the buffer behind it",
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "4096 FP32 texels fetched by a kernel through a texture object over linear memory: every value bit-exact";
}

void check_driver_pitch_2d(Report& report) {
  Driver d = open_driver(report);
  using AllocPitch = CUresult (*)(CUdeviceptr*, std::size_t*, std::size_t, std::size_t, unsigned);
  auto alloc_pitch = require_symbol<AllocPitch>(d.lib, "cuMemAllocPitch_v2");
  auto copy_2d = require_symbol<CUresult (*)(const Memcpy2D*)>(d.lib, "cuMemcpy2D_v2");

  // An odd width, so the pitch must round it up, and a sub-rectangle at an odd offset.
  constexpr std::size_t kWidth = 333, kHeight = 77, kRowBytes = kWidth * 4;
  constexpr std::size_t kSubX = 17, kSubY = 9, kSubWidth = 200, kSubHeight = 50;
  ref::Lcg rng(93);
  std::vector<std::uint32_t> host(kWidth * kHeight);
  for (auto& x : host) x = static_cast<std::uint32_t>(rng.next_u32());

  CUdeviceptr first = 0, second = 0;
  std::size_t pitch = 0, second_pitch = 0;
  check_status(Api::cuda, "cuMemAllocPitch_v2", alloc_pitch(&first, &pitch, kRowBytes, kHeight, 4));
  struct Free {
    const Driver& d;
    CUdeviceptr& p;
    ~Free() {
      if (p) d.cuMemFree_v2(p);
    }
  } free_first{d, first}, free_second{d, second};
  check_status(Api::cuda, "cuMemAllocPitch_v2", alloc_pitch(&second, &second_pitch, kSubWidth * 4, kSubHeight, 4));
  report.metrics.integer("row_bytes", kRowBytes)
      .integer("pitch", static_cast<long long>(pitch))
      .integer("second_pitch", static_cast<long long>(second_pitch));
  if (pitch < kRowBytes || second_pitch < kSubWidth * 4) {
    throw Stop{Status::fail, "cuMemAllocPitch_v2 gave a pitch of " + std::to_string(pitch) + " bytes for rows of " + std::to_string(kRowBytes),
               std::nullopt};
  }

  // Host to pitched device memory, the sub-rectangle device to device, and back to a host buffer
  // whose pitch is wider still: its padding must stay untouched.
  Memcpy2D up{};
  up.src_memory_type = kMemoryHost;
  up.src_host = host.data();
  up.src_pitch = kRowBytes;
  up.dst_memory_type = kMemoryDevice;
  up.dst_device = first;
  up.dst_pitch = pitch;
  up.width_bytes = kRowBytes;
  up.height = kHeight;
  check_status(Api::cuda, "cuMemcpy2D_v2 (host to device)", copy_2d(&up));
  Memcpy2D across{};
  across.src_x_bytes = kSubX * 4;
  across.src_y = kSubY;
  across.src_memory_type = kMemoryDevice;
  across.src_device = first;
  across.src_pitch = pitch;
  across.dst_memory_type = kMemoryDevice;
  across.dst_device = second;
  across.dst_pitch = second_pitch;
  across.width_bytes = kSubWidth * 4;
  across.height = kSubHeight;
  check_status(Api::cuda, "cuMemcpy2D_v2 (device to device, sub-rectangle)", copy_2d(&across));
  constexpr std::size_t kHostPitchWords = kSubWidth + 13;
  constexpr std::uint32_t kSentinel = 0xA5A5A5A5u;
  std::vector<std::uint32_t> back(kHostPitchWords * kSubHeight, kSentinel);
  Memcpy2D down{};
  down.src_memory_type = kMemoryDevice;
  down.src_device = second;
  down.src_pitch = second_pitch;
  down.dst_memory_type = kMemoryHost;
  down.dst_host = back.data();
  down.dst_pitch = kHostPitchWords * 4;
  down.width_bytes = kSubWidth * 4;
  down.height = kSubHeight;
  check_status(Api::cuda, "cuMemcpy2D_v2 (device to host)", copy_2d(&down));
  check_status(Api::cuda, "cuCtxSynchronize", d.cuCtxSynchronize());

  std::size_t wrong = 0, padding_touched = 0;
  for (std::size_t y = 0; y < kSubHeight; ++y) {
    for (std::size_t x = 0; x < kHostPitchWords; ++x) {
      const std::uint32_t value = back[y * kHostPitchWords + x];
      if (x < kSubWidth) {
        wrong += value != host[(kSubY + y) * kWidth + kSubX + x];
      } else {
        padding_touched += value != kSentinel;
      }
    }
  }
  report.metrics.integer("mismatched_words", static_cast<long long>(wrong)).integer("padding_words_written", static_cast<long long>(padding_touched));
  if (wrong != 0 || padding_touched != 0) {
    throw Stop{Status::fail,
               std::to_string(wrong) + " of 10000 words wrong and " + std::to_string(padding_touched) +
                   " padding words written after a 333×77 host-to-device, 200×50 device-to-device and device-to-host 2D copy",
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "333×77 words to pitched memory (pitch " + std::to_string(pitch) +
                  " bytes), a 200×50 sub-rectangle at (17, 9) device to device and back to a wider host pitch: every word right, padding untouched";
}

void check_driver_cache_config(Report& report) {
  Driver d = open_driver(report);
  auto set_cache_config = require_symbol<CUresult (*)(int)>(d.lib, "cuCtxSetCacheConfig");
  PtxModule module(d, ptx::kFeatures, "vadd");
  CUfunction vadd = module.function("vadd");

  // The four CU_FUNC_CACHE_PREFER_* values are accepted, and kernels still compute right under
  // each; an unknown value is refused (what NVIDIA's driver and upstream's tests both do).
  const char* names[] = {"PREFER_NONE", "PREFER_SHARED", "PREFER_L1", "PREFER_EQUAL"};
  std::size_t wrong = 0;
  for (int config = 0; config < 4; ++config) {
    check_status(Api::cuda, (std::string("cuCtxSetCacheConfig (CU_FUNC_CACHE_") + names[config] + ")").c_str(), set_cache_config(config));
    wrong += vadd_mismatches(d, vadd, 1u << 14, 95u + static_cast<unsigned>(config));
  }
  const int unknown = set_cache_config(4);
  set_cache_config(0);
  report.metrics.integer("mismatched_sums", static_cast<long long>(wrong)).integer("unknown_value_result", unknown);
  if (wrong != 0) {
    throw Stop{Status::fail, std::to_string(wrong) + " of 65536 sums wrong across the four cache configurations", std::nullopt};
  }
  if (unknown != 1) {
    throw Stop{Status::fail,
               "cuCtxSetCacheConfig accepted the unknown value 4 (result " + std::to_string(unknown) + ", expected CUDA_ERROR_INVALID_VALUE)",
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = "all four CU_FUNC_CACHE_PREFER_* values accepted, 16384 sums bit-exact under each; value 4 refused";
}

void check_driver_pci_bus_id(Report& report) {
  Driver d = open_driver(report);
  auto get_bus_id = require_symbol<CUresult (*)(char*, int, CUdevice)>(d.lib, "cuDeviceGetPCIBusId");
  char text[64] = {};
  check_status(Api::cuda, "cuDeviceGetPCIBusId", get_bus_id(text, static_cast<int>(sizeof text), d.device));
  int domain = -1, bus = -1, device = -1;
  check_status(Api::cuda, "cuDeviceGetAttribute (PCI_DOMAIN_ID)", d.cuDeviceGetAttribute(&domain, kAttrPciDomainId, d.device));
  check_status(Api::cuda, "cuDeviceGetAttribute (PCI_BUS_ID)", d.cuDeviceGetAttribute(&bus, kAttrPciBusId, d.device));
  check_status(Api::cuda, "cuDeviceGetAttribute (PCI_DEVICE_ID)", d.cuDeviceGetAttribute(&device, kAttrPciDeviceId, d.device));
  report.metrics.str("pci_bus_id", text).integer("pci_domain", domain).integer("pci_bus", bus).integer("pci_device", device);

  // "domain:bus:device.function" in hexadecimal; it must name the same slot as the attributes
  // (NVML and multi-GPU frameworks match devices by this string).
  unsigned text_domain = 0, text_bus = 0, text_device = 0, text_function = 0;
  char tail = 0;
  const int fields = std::sscanf(text, "%x:%x:%x.%x%c", &text_domain, &text_bus, &text_device, &text_function, &tail);
  if (fields != 4)
    throw Stop{Status::fail, std::string("cuDeviceGetPCIBusId answered \"") + text + "\", not domain:bus:device.function", std::nullopt};
  char expected[64];
  std::snprintf(expected, sizeof expected, "%x:%x:%x", static_cast<unsigned>(domain), static_cast<unsigned>(bus), static_cast<unsigned>(device));
  if (text_domain != static_cast<unsigned>(domain) || text_bus != static_cast<unsigned>(bus) || text_device != static_cast<unsigned>(device)) {
    throw Stop{Status::fail, std::string("cuDeviceGetPCIBusId answered \"") + text + "\" but the device attributes say domain:bus:device " + expected,
               std::nullopt};
  }
  report.status = Status::pass;
  report.detail = std::string("\"") + text + "\", the same slot as the PCI domain, bus and device attributes";
}

}  // namespace zcuda::probe
