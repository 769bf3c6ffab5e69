/* A stand-in ZLUDA library (cuBLAS, cuSPARSE, cuFFT, NVRTC): its CUDA-named entry point calls
 * the ROCm function ROCM_CALL, which it links at load time as lshqqytiger's builds do. Without
 * ROCM_CALL it links nothing, as upstream's Windows builds (they load ROCm at run time). */
#ifdef ROCM_CALL
extern int ROCM_CALL(void* out);
__declspec(dllexport) int CUDA_ENTRY(void* out) { return ROCM_CALL(out); }
#else
__declspec(dllexport) int CUDA_ENTRY(void* out) { return out != 0; }
#endif
