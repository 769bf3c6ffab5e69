/* A stand-in for ZLUDA's cuda_check: prints lines of its kind, and the library search path it was
   started with (the runtime folder must come first). */
#include <stdio.h>
#include <stdlib.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#define SEARCH_PATH "PATH"
#else
#define SEARCH_PATH "LD_LIBRARY_PATH"
#endif

int main(void) {
#ifdef _WIN32
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  const char* path = getenv(SEARCH_PATH);
  printf("nvcuda    : OK\ncufft12   : OK\npath=%s\n", path ? path : "");
  return 0;
}
