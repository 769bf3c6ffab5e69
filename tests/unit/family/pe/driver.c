/* A stand-in ZLUDA nvcuda.dll: the CUDA entry point calls into the HIP runtime it links (load
 * time or delayed, as the build chooses). LSHQQYTIGER adds the two extensions lshqqytiger's
 * build exports (lshqqytiger/ZLUDA zluda/src/lib.rs). */
extern int hipInit(unsigned flags);
__declspec(dllexport) int cuInit(unsigned flags) { return hipInit(flags); }
#ifdef LSHQQYTIGER
__declspec(dllexport) void* zluda_get_hip_object(void* cuda_object, int kind) { return kind ? cuda_object : 0; }
__declspec(dllexport) int zluda_get_nightly_flag(void) { return NIGHTLY; }
#endif
