// A libcuda.so.1 whose cuInit dies with SIGSEGV, as a broken driver would: verify must report
// "crash" for the checks that load it and still run the others.
#include <csignal>

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned) {
  std::raise(SIGSEGV);
  return 999;
}
