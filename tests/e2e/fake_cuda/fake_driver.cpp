// A CUDA driver (libcuda.so.1 / nvcuda.dll) with host memory for device memory and one device,
// "zcuda fake GPU", of compute capability 9.0. Copies and memsets work; it runs no kernels
// (module loads answer CUDA_ERROR_NOT_SUPPORTED). Libraries the tests fake on top of it
// (fake_cudnn.cpp) compute on its "device" pointers directly. The calls upstream ZLUDA added after
// v6-preview.69 (pitched memory and 2D copies, the PCI bus id, cache configuration, texture
// objects) behave as NVIDIA's do; ZCUDA_FAKE_DRIVER=wrong makes the 2D copy drop its last row and
// the bus id name another slot, so verify's checks are seen to fail.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fake_export.hpp"

namespace {
constexpr int kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNotSupported = 801;
int token;  // the address of something, for handles
bool wrong() {
  const char* mode = std::getenv("ZCUDA_FAKE_DRIVER");
  return mode != nullptr && std::strcmp(mode, "wrong") == 0;
}
// cuda.h's CUDA_MEMCPY2D (64-bit).
struct Memcpy2D {
  std::size_t src_x_bytes, src_y;
  int src_memory_type;
  const void* src_host;
  unsigned long long src_device;
  void* src_array;
  std::size_t src_pitch;
  std::size_t dst_x_bytes, dst_y;
  int dst_memory_type;
  void* dst_host;
  unsigned long long dst_device;
  void* dst_array;
  std::size_t dst_pitch;
  std::size_t width_bytes, height;
};
}  // namespace

ZCUDA_EXPORT int cuInit(unsigned) { return kSuccess; }
// NVIDIA's NVRTC looks this up in whatever libcuda.so.1 the process has and crashes when it is
// not exported: the fake has no private tables to offer (CUDA_ERROR_NOT_FOUND).
ZCUDA_EXPORT int cuGetExportTable(const void** table, const void*) {
  *table = nullptr;
  return 500;
}
ZCUDA_EXPORT int cuDriverGetVersion(int* v) { return *v = 13000, kSuccess; }
ZCUDA_EXPORT int cuDeviceGetCount(int* n) { return *n = 1, kSuccess; }
ZCUDA_EXPORT int cuDeviceGet(int* d, int ordinal) { return ordinal == 0 ? (*d = 0, kSuccess) : kInvalidValue; }
ZCUDA_EXPORT int cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "zcuda fake GPU", static_cast<std::size_t>(length));
  return kSuccess;
}
ZCUDA_EXPORT int cuDeviceGetAttribute(int* value, int attribute, int) {
  switch (attribute) {
    case 75:
      *value = 9;
      break;  // compute capability major
    case 76:
      *value = 0;
      break;  // minor
    case 16:
      *value = 1;
      break;  // multiprocessors
    case 97:
      *value = 49152;
      break;  // opt-in shared memory per block
    case 33:
      *value = 0x2a;
      break;  // PCI bus
    case 34:
      *value = 3;
      break;  // PCI device
    case 50:
      *value = 1;
      break;  // PCI domain
    default:
      *value = 0;
  }
  return kSuccess;
}
ZCUDA_EXPORT int cuDeviceTotalMem_v2(std::size_t* bytes, int) { return *bytes = std::size_t{1} << 30, kSuccess; }
ZCUDA_EXPORT int cuDevicePrimaryCtxRetain(void** context, int) { return *context = &token, kSuccess; }
ZCUDA_EXPORT int cuCtxSetCurrent(void*) { return kSuccess; }
ZCUDA_EXPORT int cuCtxSynchronize() { return kSuccess; }
ZCUDA_EXPORT int cuMemAlloc_v2(unsigned long long* ptr, std::size_t bytes) {
  void* p = std::calloc(bytes, 1);
  if (p == nullptr) return kOutOfMemory;
  *ptr = reinterpret_cast<unsigned long long>(p);
  return kSuccess;
}
ZCUDA_EXPORT int cuMemFree_v2(unsigned long long ptr) {
  std::free(reinterpret_cast<void*>(ptr));
  return kSuccess;
}
ZCUDA_EXPORT int cuMemHostAlloc(void** ptr, std::size_t bytes, unsigned) { return (*ptr = std::malloc(bytes)) ? kSuccess : kOutOfMemory; }
ZCUDA_EXPORT int cuMemFreeHost(void* ptr) {
  std::free(ptr);
  return kSuccess;
}
ZCUDA_EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return kSuccess;
}
ZCUDA_EXPORT int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return kSuccess;
}
ZCUDA_EXPORT int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src, std::size_t bytes, void*) { return cuMemcpyHtoD_v2(dst, src, bytes); }
ZCUDA_EXPORT int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src, std::size_t bytes, void*) { return cuMemcpyDtoH_v2(dst, src, bytes); }
ZCUDA_EXPORT int cuMemsetD32_v2(unsigned long long dst, unsigned value, std::size_t count) {
  auto* words = reinterpret_cast<unsigned*>(dst);
  for (std::size_t i = 0; i < count; ++i) words[i] = value;
  return kSuccess;
}
ZCUDA_EXPORT int cuMemAllocPitch_v2(unsigned long long* ptr, std::size_t* pitch, std::size_t width, std::size_t height, unsigned element) {
  if (element != 4 && element != 8 && element != 16) return kInvalidValue;
  *pitch = (width + 511) / 512 * 512;
  return cuMemAlloc_v2(ptr, *pitch * height);
}
// Host and device memory are both host memory here, so one loop serves every direction.
ZCUDA_EXPORT int cuMemcpy2D_v2(const Memcpy2D* copy) {
  const auto* src = static_cast<const unsigned char*>(copy->src_memory_type == 1 ? copy->src_host : reinterpret_cast<const void*>(copy->src_device));
  auto* dst = static_cast<unsigned char*>(copy->dst_memory_type == 1 ? copy->dst_host : reinterpret_cast<void*>(copy->dst_device));
  const std::size_t rows = wrong() ? copy->height - 1 : copy->height;
  for (std::size_t y = 0; y < rows; ++y) {
    std::memcpy(dst + (copy->dst_y + y) * copy->dst_pitch + copy->dst_x_bytes, src + (copy->src_y + y) * copy->src_pitch + copy->src_x_bytes,
                copy->width_bytes);
  }
  return kSuccess;
}
ZCUDA_EXPORT int cuDeviceGetPCIBusId(char* text, int length, int) {
  std::snprintf(text, static_cast<std::size_t>(length), "%04x:%02x:%02x.0", 1, wrong() ? 0x2b : 0x2a, 3);
  return kSuccess;
}
ZCUDA_EXPORT int cuCtxSetCacheConfig(int config) { return config >= 0 && config <= 3 ? kSuccess : kInvalidValue; }
ZCUDA_EXPORT int cuTexObjectCreate(unsigned long long* object, const void*, const void*, const void*) { return *object = 1, kSuccess; }
ZCUDA_EXPORT int cuTexObjectDestroy(unsigned long long) { return kSuccess; }
ZCUDA_EXPORT int cuModuleLoadDataEx(void**, const void*, unsigned, int*, void**) { return kNotSupported; }
ZCUDA_EXPORT int cuModuleGetFunction(void**, void*, const char*) { return kNotSupported; }
ZCUDA_EXPORT int cuModuleUnload(void*) { return kSuccess; }
ZCUDA_EXPORT int cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) {
  return kNotSupported;
}
ZCUDA_EXPORT int cuStreamCreate(void** stream, unsigned) { return *stream = &token, kSuccess; }
ZCUDA_EXPORT int cuStreamSynchronize(void*) { return kSuccess; }
ZCUDA_EXPORT int cuStreamDestroy_v2(void*) { return kSuccess; }
ZCUDA_EXPORT int cuEventCreate(void** event, unsigned) { return *event = &token, kSuccess; }
ZCUDA_EXPORT int cuEventRecord(void*, void*) { return kSuccess; }
ZCUDA_EXPORT int cuEventSynchronize(void*) { return kSuccess; }
ZCUDA_EXPORT int cuEventElapsedTime(float* ms, void*, void*) { return *ms = 1.0f, kSuccess; }
ZCUDA_EXPORT int cuEventDestroy_v2(void*) { return kSuccess; }
