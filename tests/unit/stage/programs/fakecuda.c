/* A stand-in libcuda.so.1: built twice with different identities (the one an application ships,
   and the one a runtime folder provides) so a test can tell which one the loader picked. */
const char* which(void) { return ZCUDA_FAKE_IDENTITY; }
int cuInit(unsigned flags) { return (int)flags; }
