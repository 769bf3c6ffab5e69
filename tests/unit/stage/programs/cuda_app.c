/* Linked against libcuda.so.1 with RUNPATH $ORIGIN: prints the identity of the libcuda.so.1
   the dynamic loader found. With an argument, it then keeps running (and the library mapped)
   for that many milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
const char* which(void);
int cuInit(unsigned flags);
int main(int argc, char** argv) {
  printf("%s\n", which());
  fflush(stdout);
  if (argc > 1) {
    long ms = atol(argv[1]);
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
  }
  return cuInit(0);
}
