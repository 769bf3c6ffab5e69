/* Loads nvcuda.dll at run time, as CUDA programs (and the CUDA runtime inside them) do, by name,
   so the standard search order applies: the program's own folder first. Prints the identity of
   the nvcuda.dll it got. With an argument, it then keeps running (and the DLL loaded) for that
   many milliseconds. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

typedef const char* (*which_fn)(void);
typedef int (*init_fn)(unsigned);

int main(int argc, char** argv) {
  _setmode(_fileno(stdout), _O_BINARY); /* "\n" as on Linux, not "\r\n" */
  HMODULE driver = LoadLibraryW(L"nvcuda.dll");
  if (driver == NULL) {
    printf("no nvcuda.dll (error %lu)\n", GetLastError());
    return 2;
  }
  which_fn which = (which_fn)(void*)GetProcAddress(driver, "which");
  init_fn init = (init_fn)(void*)GetProcAddress(driver, "cuInit");
  if (which == NULL || init == NULL) {
    printf("nvcuda.dll exports no which/cuInit\n");
    return 3;
  }
  printf("%s\n", which());
  fflush(stdout);
  if (argc > 1) Sleep((DWORD)atoi(argv[1]));
  return init(0);
}
