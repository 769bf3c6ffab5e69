/* A stand-in for the programs a ZLUDA release ships (zluda.exe, zluda_precompile.exe, ...). */
int main(void) { return 0; }
