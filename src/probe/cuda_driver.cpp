#include "cuda_driver.hpp"

#include <string>

namespace zcuda::probe {

#define ZCUDA_RESOLVE(name) driver.name = require_symbol<decltype(driver.name)>(driver.lib, #name)

const char* stack_of(const std::string& device_name) {
  constexpr std::string_view suffix = " [ZLUDA]";
  return device_name.ends_with(suffix) ? "zluda" : "nvidia";
}

Driver open_driver(Report& report) {
  Driver driver;
  driver.lib = require_library(report, "driver");
  ZCUDA_RESOLVE(cuInit);
  check_status(Api::cuda, "cuInit", driver.cuInit(0));

  ZCUDA_RESOLVE(cuDriverGetVersion);
  ZCUDA_RESOLVE(cuDeviceGetCount);
  ZCUDA_RESOLVE(cuDeviceGet);
  ZCUDA_RESOLVE(cuDeviceGetName);
  ZCUDA_RESOLVE(cuDeviceGetAttribute);
  ZCUDA_RESOLVE(cuDeviceTotalMem_v2);
  ZCUDA_RESOLVE(cuDevicePrimaryCtxRetain);
  ZCUDA_RESOLVE(cuCtxSetCurrent);
  ZCUDA_RESOLVE(cuCtxSynchronize);
  ZCUDA_RESOLVE(cuMemAlloc_v2);
  ZCUDA_RESOLVE(cuMemFree_v2);
  ZCUDA_RESOLVE(cuMemHostAlloc);
  ZCUDA_RESOLVE(cuMemFreeHost);
  ZCUDA_RESOLVE(cuMemcpyHtoD_v2);
  ZCUDA_RESOLVE(cuMemcpyDtoH_v2);
  ZCUDA_RESOLVE(cuMemcpyHtoDAsync_v2);
  ZCUDA_RESOLVE(cuMemcpyDtoHAsync_v2);
  ZCUDA_RESOLVE(cuModuleLoadDataEx);
  ZCUDA_RESOLVE(cuModuleGetFunction);
  ZCUDA_RESOLVE(cuModuleUnload);
  ZCUDA_RESOLVE(cuLaunchKernel);
  ZCUDA_RESOLVE(cuStreamCreate);
  ZCUDA_RESOLVE(cuStreamSynchronize);
  ZCUDA_RESOLVE(cuStreamDestroy_v2);
  ZCUDA_RESOLVE(cuEventCreate);
  ZCUDA_RESOLVE(cuEventRecord);
  ZCUDA_RESOLVE(cuEventSynchronize);
  ZCUDA_RESOLVE(cuEventElapsedTime);
  ZCUDA_RESOLVE(cuEventDestroy_v2);

  int count = 0;
  check_status(Api::cuda, "cuDeviceGetCount", driver.cuDeviceGetCount(&count));
  if (count < 1) throw Stop{Status::error, "cuDeviceGetCount reports no CUDA device", std::nullopt};
  check_status(Api::cuda, "cuDeviceGet", driver.cuDeviceGet(&driver.device, 0));
  char name[256] = {};
  check_status(Api::cuda, "cuDeviceGetName", driver.cuDeviceGetName(name, static_cast<int>(sizeof name) - 1, driver.device));
  report.device = name;
  report.stack = stack_of(report.device);

  CUcontext context = nullptr;
  check_status(Api::cuda, "cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain(&context, driver.device));
  check_status(Api::cuda, "cuCtxSetCurrent", driver.cuCtxSetCurrent(context));
  return driver;
}

#undef ZCUDA_RESOLVE

DeviceBuffer::DeviceBuffer(const Driver& driver, std::size_t bytes) : driver_(driver) {
  check_status(Api::cuda, "cuMemAlloc_v2", driver_.cuMemAlloc_v2(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) driver_.cuMemFree_v2(ptr_);
}

PinnedBuffer::PinnedBuffer(const Driver& driver, std::size_t bytes) : driver_(driver) {
  check_status(Api::cuda, "cuMemHostAlloc", driver_.cuMemHostAlloc(&ptr_, bytes, 0));
}

PinnedBuffer::~PinnedBuffer() {
  if (ptr_ != nullptr) driver_.cuMemFreeHost(ptr_);
}

Stream::Stream(const Driver& driver, unsigned flags) : driver_(driver) {
  check_status(Api::cuda, "cuStreamCreate", driver_.cuStreamCreate(&stream_, flags));
}

Stream::~Stream() {
  if (stream_ != nullptr) driver_.cuStreamDestroy_v2(stream_);
}

Event::Event(const Driver& driver) : driver_(driver) { check_status(Api::cuda, "cuEventCreate", driver_.cuEventCreate(&event_, 0)); }

Event::~Event() {
  if (event_ != nullptr) driver_.cuEventDestroy_v2(event_);
}

}  // namespace zcuda::probe
