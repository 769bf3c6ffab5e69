/* Prints each argument after the program name in hex, one per line, so a test can compare
   arguments byte for byte (empty ones included). Exits with the code in ARGDUMP_EXIT. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    printf("arg:");
    for (const unsigned char* p = (const unsigned char*)argv[i]; *p; ++p) printf("%02x", *p);
    printf("\n");
  }
  const char* code = getenv("ARGDUMP_EXIT");
  return code ? atoi(code) : 0;
}
