// A libcuda.so.1 whose cuInit never returns and leaves a child process behind, as a hung driver
// might: verify must report "timeout" and kill the whole process tree. The child's pid goes to
// $ZCUDA_TEST_PIDFILE so the test can see it was killed.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned) {
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  if (const char* file = std::getenv("ZCUDA_TEST_PIDFILE")) {
    if (FILE* f = std::fopen(file, "w")) {
      std::fprintf(f, "%d\n", static_cast<int>(child));
      std::fclose(f);
    }
  }
  for (;;) pause();
}
