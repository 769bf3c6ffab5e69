/* Linked against libcuda.so.1 with RUNPATH $ORIGIN: prints the identity of the libcuda.so.1
   the dynamic loader found. */
#include <stdio.h>
const char* which(void);
int cuInit(unsigned flags);
int main(void) {
  printf("%s\n", which());
  return cuInit(0);
}
