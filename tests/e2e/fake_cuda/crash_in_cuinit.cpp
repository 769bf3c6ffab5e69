// A CUDA driver library (libcuda.so.1 / nvcuda.dll) whose cuInit crashes, as a broken driver
// would: a null-pointer write, SIGSEGV on Linux and an access violation on Windows. verify must
// report "crash" for the checks that load it and still run the others.
#ifdef _WIN32
#define ZCUDA_EXPORT extern "C" __declspec(dllexport)
#else
#define ZCUDA_EXPORT extern "C" __attribute__((visibility("default")))
#endif

ZCUDA_EXPORT int cuInit(unsigned) {
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  return 999;
}
