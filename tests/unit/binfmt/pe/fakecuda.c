/* A stand-in nvcuda.dll for the PE parser tests: one export the test programs import. */
__declspec(dllexport) int cuInit(unsigned flags) { return (int)flags; }
