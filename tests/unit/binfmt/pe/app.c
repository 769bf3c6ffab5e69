/* A program importing nvcuda.dll, linked normally or through a delay-import library. */
__declspec(dllimport) int cuInit(unsigned flags);
int main(void) { return cuInit(0); }
