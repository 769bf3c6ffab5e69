#pragma once
// The CUDA driver API as the probe uses it: prototypes written out from NVIDIA's cuda.h (no
// headers needed), resolved from whichever libcuda.so.1 / nvcuda.dll the loader picks.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "check.hpp"

namespace zcuda::probe {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;

// Device attributes and flags (cuda.h).
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;

struct Driver {
  Library lib;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(std::size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr) = nullptr;
  CUresult (*cuMemHostAlloc)(void**, std::size_t, unsigned) = nullptr;
  CUresult (*cuMemFreeHost)(void*) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void*, std::size_t, CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync_v2)(void*, CUdeviceptr, std::size_t, CUstream) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamDestroy_v2)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent) = nullptr;

  CUdevice device = 0;
};

// Loads the driver, calls cuInit (first, before resolving anything else, so a broken driver fails
// there), resolves the rest, names device 0 (setting report.device and report.stack) and makes
// its primary context current.
Driver open_driver(Report& report);

// "zluda" when the device name carries ZLUDA's " [ZLUDA]" suffix, else "nvidia".
const char* stack_of(const std::string& device_name);

// Device memory, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(const Driver& driver, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CUdeviceptr get() const { return ptr_; }
  void* as_pointer() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr_)); }

  template <class T>
  void upload(std::span<const T> data) const {
    check_status(Api::cuda, "cuMemcpyHtoD_v2", driver_.cuMemcpyHtoD_v2(ptr_, data.data(), data.size_bytes()));
  }
  template <class T>
  std::vector<T> download(std::size_t count) const {
    std::vector<T> out(count);
    check_status(Api::cuda, "cuMemcpyDtoH_v2", driver_.cuMemcpyDtoH_v2(out.data(), ptr_, count * sizeof(T)));
    return out;
  }

 private:
  const Driver& driver_;
  CUdeviceptr ptr_ = 0;
};

// Page-locked host memory (what asynchronous copies need), freed on scope exit.
class PinnedBuffer {
 public:
  PinnedBuffer(const Driver& driver, std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  unsigned char* data() const { return static_cast<unsigned char*>(ptr_); }

 private:
  const Driver& driver_;
  void* ptr_ = nullptr;
};

// A stream, destroyed on scope exit. `flags`: 0 default, 1 CU_STREAM_NON_BLOCKING.
class Stream {
 public:
  explicit Stream(const Driver& driver, unsigned flags = 0);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return stream_; }

 private:
  const Driver& driver_;
  CUstream stream_ = nullptr;
};

// A timing event, destroyed on scope exit.
class Event {
 public:
  explicit Event(const Driver& driver);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  const Driver& driver_;
  CUevent event_ = nullptr;
};

}  // namespace zcuda::probe
