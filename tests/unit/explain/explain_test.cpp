// The knowledge base of failure messages: valid, each entry recognising the real message text its
// sources quote (and no other entry's), and explanations filled with the machine's facts.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/explain/explain.hpp>
#include <zcuda/platform/files.hpp>

#include <fmt/format.h>
#include "unit/explain/knowledge_fixture.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

using explain::KnowledgeBase;

// One row per entry: the real message text, as the cited issue or source quotes it, written here
// independently of the manifest's own samples. What the explanation must then say.
struct RealMessage {
  std::string id;
  std::string text;
  std::string title_has;
};

const std::vector<RealMessage>& real_messages() {
  static const std::vector<RealMessage> rows = {
      // https://github.com/patientx/ComfyUI-Zluda/issues/162
      {"rocblas-no-kernels-for-gfx",
       "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\/rocblas/library/TensileLibrary.dat: No such file or directory for "
       "GPU arch : gfx1201",
       "gfx1201"},
      // https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12
      {"rocblas-lazy-library-missing",
       "rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary_lazy_gfx1103.dat", "gfx1103"},
      // https://github.com/ROCm/rocm-libraries/issues/9459 (the reason is on the next line)
      {"rocblas-tensile-host-init-failed", "4: rocBLAS error: Could not initialize Tensile host:", "Tensile host"},
      // https://github.com/ROCm/TheRock/issues/754
      {"hipblaslt-no-kernels-for-gfx", "rocblaslt error: Cannot read \"TensileLibrary_lazy_gfx1101.dat\": No error", "hipBLASLt"},
      // https://github.com/vosen/ZLUDA/issues/545
      {"hip-runtime-not-found",
       "The code execution cannot proceed because amdhip64_6.dll was not found. This problem may be solved by reinstalling the program.",
       "amdhip64_6.dll"},
      // https://github.com/lshqqytiger/ZLUDA/issues/3
      {"hiprtc-not-found",
       "The main error display \"The code execution cannot continue because hiprtc0507.dll was not found. To solve the problem, try reinstalling "
       "the software\"",
       "hiprtc0507.dll"},
      // https://github.com/vosen/ZLUDA/issues/249
      {"hip-entry-point-missing",
       "The procedure entry point hipDeviceSetLimit could not be found in the dynamic link library D:\\Apps\\ZLUDA\\nvcuda.dll", "hipDeviceSetLimit"},
      // upstream's dialog title, zluda_windows/src/lib.rs: "ZLUDA failed to load " and the names joined with " or "
      {"zluda-perf-library-not-loaded", "ZLUDA failed to load hipblaslt.dll or libhipblaslt.dll", "hipblaslt.dll"},
      // https://github.com/vosen/ZLUDA/issues/257 (format); error 740 from lshqqytiger/ZLUDA's README
      {"launcher-elevation-required",
       "Error: OsError { function: \"DetourCreateProcessWithDllsW\", error_code: 740, message: \"The requested operation requires "
       "elevation.\" }",
       "740"},
      // https://github.com/vosen/ZLUDA/issues/257
      {"launcher-program-not-found",
       "`Error: OsError { function: \"DetourCreateProcessWithDllsW\", error_code: 2, message: \"The system cannot find the file "
       "specified.\" }`",
       "error 2"},
      {"launcher-access-denied", "`Error: OsError { function: \"DetourCreateProcessWithDllsW\", error_code: 5, message: \"Access is denied.\" }`",
       "error 5"},
      // https://github.com/vosen/ZLUDA/issues/55
      {"redirect-dll-init-failed",
       "An error occurred while displaying \"D: \\ zluda \\ ZLUDA \\ target \\ release \\ zluda redirect.Dll The dynamic link library (DLL) "
       "initialization routine failed\"",
       "zluda_redirect.dll"},
      // https://github.com/pytorch/pytorch/pull/91436
      {"cublaslt-not-supported",
       "RuntimeError: 0CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling cublasLtMatmul with transpose_mat1 1 transpose_mat2 0 m 16 n "
       "16384 k 48 mat1_ld 48",
       "cublasLtMatmul"},
      // https://github.com/githubcto/FramePack-ZLUDA/issues/1
      {"cublas-not-supported",
       "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, "
       "c, ldc)`",
       "cublasSgemm"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/164
      {"cudnn-miopen-failed", "!!! Exception during processing !!! GET was unable to find an engine to execute this computation", "MIOpen"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/284
      {"cudnn-execution-failed", "!!! Exception during processing !!! cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_EXECUTION_FAILED"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/140
      {"miopen-code-object-build-failed",
       "MIOpen Error: D:/ML/amdgpu/repositories/MIOpen/src/hipoc/hipoc_program.cpp:299: Code object build failed. Source: MIOpenIm3d2Col.cl",
       "MIOpen"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/463
      {"no-gpu-visible", "RuntimeError: No CUDA GPUs are available", "no GPU"},
      // https://github.com/lshqqytiger/ZLUDA/issues/106 ("shows CUDA unknown error"); PyTorch's own wording
      {"cuda-unknown-error-after-driver-update",
       "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
       "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",
       "could not initialise CUDA"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/417
      {"torch-no-nvidia-driver",
       "    RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
       "http://www.nvidia.com/Download/index.aspx",
       "NVIDIA driver"},
      // https://github.com/vladmandic/sdnext/issues/3910
      {"zluda-nvcuda-load-failed",
       "08:52:06-241924 WARNING  Failed to load ZLUDA: Could not find module 'C:\\Documents\\SD\\sdnext\\.zluda\\nvcuda.dll' (or one", "nvcuda.dll"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/9
      {"nvrtc-load-failed",
       "OSError: [WinError 126] The specified module could not be found. Error loading "
       "\"E:\\ComfyUI-Zluda\\venv\\Lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll\" or one of its dependencies.",
       "caffe2_nvrtc.dll"},
      // https://github.com/vladmandic/sdnext/issues/2880
      {"torch-lib-patched-dll-load-failed",
       "OSError: [WinError 126] Specified module not found. Error loading "
       "\"L:\\_SD\\SD.Next.ZLuda\\automatic\\venv\\lib\\site-packages\\torch\\lib\\cublas64_11.dll\" or one of its dependencies.",
       "cublas64_11.dll"},
      // https://github.com/pytorch/pytorch/issues/73534
      {"hip-no-binary-for-gpu", "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", "no kernels"},
      // https://github.com/lshqqytiger/ZLUDA/issues/108
      {"torch-unknown-cuda-arch", "ValueError: Unknown CUDA arch (8.8+PTX) or GPU not supported", "8.8+PTX"},
      // https://github.com/ollama/ollama/issues/12071
      {"ollama-amdgpu-not-supported",
       "time=... level=WARN msg=\"amdgpu is not supported (supported types:[])\" gpu_type=gfx1102 gpu=1 library=C:\\Users\\...\\lib\\ollama\\rocm",
       "gfx1102"},
      // https://github.com/vosen/ZLUDA/issues/604
      {"cublas-arch-feature-absent", "CUDA error: the function requires an architectural feature absent from the device", "architectural feature"},
      // https://github.com/ROCm/rocm-libraries/issues/11903
      {"miopen-database-path", "MIOpen Error: ... Cannot open database file:C:\\Users\\陈鹏宇\\.miopen\\cache\\...\\gfx1200_16.ukdb", "non-ASCII"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/360
      {"antivirus-quarantine", "[ERROR] Can't detect zluda.exe inside .\\zluda directory.", "Antivirus"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/463
      {"zluda-family-mismatch", "[ERROR] Detected ZLUDA version: expected ERROR: Could not call zluda_get_nightly_flag:", "zluda_get_nightly_flag"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu-forge/issues/36
      {"cuda-operation-not-supported", "RuntimeError: CUDA error: operation not supported", "operation not supported"},
      // https://github.com/CS1o/Stable-Diffusion-Info/issues/41
      {"zluda-basic-operation-test-failed", "ZLUDA device failed to pass basic operation test: index=0, device_name=AMD Radeon RX 6800 XT [ZLUDA]",
       "basic operation test"},
      // https://github.com/CS1o/Stable-Diffusion-Info/issues/5
      {"zluda-load-failed-list-index", "Failed to load ZLUDA: list index out of range", "list index out of range"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/552
      {"using-cpu-only-torch", "Using CPU-only torch", "CPU-only"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/656
      {"zluda-install-http-404", "Failed to install ZLUDA: HTTP Error 404: Not Found", "404"},
      // https://github.com/githubcto/FramePack-ZLUDA/issues/3
      {"flash-attention-unknown-device-type", "Flash attention setup failed: Unknown Device Type", "Flash attention"},
      // https://github.com/ollama/ollama/issues/8770
      {"ollama-runner-exit-status-2", "Error: llama runner process has terminated: exit status 2", "status 2"},
      // https://github.com/ollama/ollama/issues/4334
      {"ollama-runner-access-violation",
       "time=2024-05-10T22:52:42.838-04:00 level=ERROR source=sched.go:339 msg=\"error loading llama server\" error=\"llama runner process has "
       "terminated: exit status 0xc0000005 \"",
       "0xc0000005"},
      // https://github.com/ollama/ollama/issues/3107
      {"ollama-runner-no-gpu-code", "Error: llama runner process has terminated: exit status 0xc0000409 CUDA error: invalid device function",
       "0xc0000409"},
      // https://github.com/likelovewant/ollama-for-amd/issues/67
      {"ollama-two-servers",
       "Error: POST predict: Post \"http://127.0.0.1:51389/completion\": read tcp 127.0.0.1:51391->127.0.0.1:51389: wsarecv: An existing connection "
       "was forcibly closed by the remote host.",
       "two ollama.exe"},
      // https://github.com/ollama/ollama/issues/4099
      {"ollama-amdgpu-not-supported-override",
       "time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 msg=\"amdgpu [0] gfx1103 is not supported by /tmp/ollama2145067703/rocm "
       "[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]\"",
       "gfx1103"},
      // https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/4
      {"ollama-gfx-xnack-suffix", "Ryzen 7 4700u - gfx90c:xnack- not supported supported_types=\"[gfx1030 gfx1100 gfx1101 gfx1102 gfx906 gfx90c]\"",
       "gfx90c:xnack-"},
      // https://github.com/ggml-org/llama.cpp/issues/22013
      {"ggml-rocm-invalid-device-function", "ROCm error: invalid device function", "llama.cpp"},
      // https://github.com/vosen/ZLUDA/issues/325
      {"blender-cuda-invalid-context",
       "Invalid context in cuStreamCreate(&cuda_stream_, CU_STREAM_NON_BLOCKING) "
       "(C:\\Users\\blender\\git\\blender-v420\\blender.git\\intern\\cycles\\device\\cuda\\queue.cpp:21)",
       "Blender"},
      // https://github.com/vosen/ZLUDA/issues/226
      {"blender-cycles-kernel-dll-missing",
       "Code execution cannot continue because cycles_kernel_oneapi_aot.dll was not found. For solving trying to reinstall the software",
       "cycles_kernel_oneapi_aot.dll"},
      // https://github.com/woct0rdho/triton-windows/issues/83
      {"triton-python-libs-missing",
       "H:\\ComfyUI128\\python_embeded\\Lib\\site-packages\\triton\\windows_utils.py:254: UserWarning: Failed to find Python libs.", "Triton"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/140
      {"clang-no-visual-studio",
       "clang: warning: unable to find a Visual Studio installation; try running Clang from a developer command prompt [-Wmsvc-not-found]",
       "Visual Studio"},
      // https://github.com/ROCm/legacy-rocm-build/issues/2363
      {"hip-sdk-installer-error-215", "AMD ROCm Windows Installation Error 215", "215"},
      // https://github.com/ROCm/legacy-rocm-build/issues/6285
      {"hip-path-stale", "HIP version file: \"/opt/rocm-7.2.3/hip/share/hip/version\" not found", "HIP_PATH"},
      // https://github.com/BeTheRobotSD/sdxl-comfyui-ultimate-workflow/issues/1
      {"curl-schannel-revocation",
       "curl: (35) schannel: next InitializeSecurityContext failed: Unknown error (0x80092013) - The revocation function was unable to check "
       "revocation because the revocation server was offline.",
       "revocation"},
      // https://github.com/vladmandic/sdnext/issues/4035
      {"cublaslt-heuristic-invalid-value",
       "20:45:47-004750 ERROR    Prompt parser encode: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasLtMatmulAlgoGetHeuristic( "
       "ltHandle, computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(),",
       "cuBLASLt"},
      // https://github.com/lshqqytiger/ZLUDA/issues/85
      {"forge-hipsdk-not-defined", "Failed to install ZLUDA: name 'HIPSDK' is not defined", "HIPSDK"},
      // https://github.com/lllyasviel/stable-diffusion-webui-forge/issues/2191
      {"forge-upstream-device-not-supported",
       "RuntimeError: Your device does not support the current version of Torch/CUDA! Consider download another version", "Upstream Forge"},
      // https://github.com/LykosAI/StabilityMatrix/issues/692
      {"sdnext-directml-install-skips-hip", "10:27:18-836918 WARNING  ZLUDA failed to initialize: no HIP SDK found", "DirectML"},
      // https://github.com/vosen/ZLUDA/issues/246
      {"gpu-out-of-memory", "!!! Exception during processing!!! CUDA out of memory. Tried to allocate 22.15 GiB. GPU", "out of memory"},
      // https://github.com/Comfy-Org/ComfyUI/issues/1781
      {"comfyui-vae-tiled-retry", "Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.", "tiles"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/461
      {"cudnn-frontend-no-execution-plans", "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.",
       "no execution plans"},
      // https://github.com/Comfy-Org/ComfyUI/pull/2829
      {"cuda-named-symbol-not-found", "CUDA error: named symbol not found", "named symbol"},
      // https://github.com/lshqqytiger/ZLUDA/issues/95
      {"miopen-not-implemented", "YOLO11 cuDNN error on ZLUDA nightly 3.9.2 (miopenStatusNotImplemented)", "MIOpen"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/565
      {"cufft-internal-error", "[Bug]: CUFFT_INTERNAL_ERROR on ZLUDA when using inpaint+lama", "cuFFT"},
      // https://github.com/ROCm/MIOpen/issues/1606
      {"miopen-missing-system-db",
       "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_40.kdb Performance may degrade. Please follow instructions to "
       "install: https://github.com/ROCmSoftwarePlatform/MIOpen#installing-miopen-kernels-package",
       "kernel database"},
      // https://github.com/ROCm/MIOpen/issues/109
      {"miopen-perfdb-unreadable",
       "MIOpen(HIP): Warning [FindRecordUnsafe] File is unreadable: /opt/rocm/miopen/share/miopen/db/gfx803_32.cd.pdb.txt", "performance database"},
      // https://github.com/0xShug0/audio.cpp/pull/160
      {"therock-clang-layout", "ROCm clang not found under C:\\TheRock\\build\\bin", "TheRock"},
      // https://github.com/vladmandic/sdnext/issues/2912
      {"torch-memory-stats-invalid-argument", "RuntimeError: invalid argument to reset_peak_memory_stats", "memory monitor"},
      // https://github.com/NixOS/nixpkgs/issues/308206
      {"ollama-amdgpu-version-file-missing",
       "May 01 11:05:13 viper ollama[283307]: time=2024-05-01T11:05:13.123+03:00 level=WARN source=amd_linux.go:53 msg=\"ollama recommends running "
       "the https://www.amd.com/en/support/linux-drivers: amdgpu version file missing: /sys/module/amdgpu/version stat /sys/module/amdgpu/version: "
       "no such file or directory\"",
       "version file"},
      // https://github.com/ROCm/TheRock/issues/1062
      {"hipblaslt-unsupported-gpu-target", "[hipBLASLt configure]   Unsupported GPU target: gfx1102", "gfx1102"},
      // https://github.com/ROCm/legacy-rocm-build/issues/3680
      {"hip-path-unquoted-program-files", "'C:\\Program' is not recognized as an internal or external command,", "HIP_PATH"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/348
      {"comfyui-zluda-archive-missing", "tar.exe: Error opening archive: Failed to open 'zluda.zip'", "zluda.zip"},
      // https://github.com/ROCm/legacy-rocm-build/issues/5943
      {"libdrm-amdgpu-ids-missing", "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory", "amdgpu.ids"},
      // https://github.com/ROCm/ROCm-docker/issues/116
      {"kfd-permission-denied", "Unable to open /dev/kfd read-write: Permission denied", "/dev/kfd"},
      // https://github.com/ollama/ollama/issues/8851
      {"gpu-memory-access-fault",
       "Memory access fault by GPU node-1 (Agent handle: 0x5635e3db2590) on address 0x7f189722f000. Reason: Page not present or supervisor "
       "privilege.",
       "Memory access fault"},
      // https://github.com/ROCm/TheRock/blob/main/docs/development/windows_support.md
      {"therock-ccache-duplicate-symbol", "[rocBLAS] lld-link: error: duplicate symbol: rocblas_dtbsv_batched", "duplicate symbol"},
      // https://github.com/ROCm/TheRock/blob/main/docs/development/windows_support.md
      {"therock-gfx-family-unsupported", "error: directive requires gfx90a+", "gfx90a"},
      // https://github.com/pytorch/pytorch/issues/138067
      {"hipblaslt-unsupported-arch-error", "Attempting to use hipBLASLt on a unsupported architecture!", "hipBLASLt"},
      // https://github.com/ROCm/legacy-rocm-build/issues/5643
      {"hipblaslt-unsupported-arch-fallback",
       "<stdin>:6: UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas", "hipBLAS"},
      // https://github.com/OpenBMB/MiniCPM-V/issues/356
      {"cuda-invalid-device-ordinal", "RuntimeError: CUDA error: invalid device ordinal", "GPU number"},
      // https://github.com/ollama/ollama/issues/6336
      {"ollama-gfx-override-active",
       "time=2024-08-13T16:46:10.463+08:00 level=INFO source=amd_linux.go:348 msg=\"skipping rocm gfx compatibility check\" "
       "HSA_OVERRIDE_GFX_VERSION=9.0.0",
       "HSA_OVERRIDE_GFX_VERSION"},
      // https://github.com/ROCm/legacy-rocm-build/issues/1375
      {"amdgpu-dkms-build-failed", "Error! Bad return status for module build on kernel: 5.8.0-43-generic (x86_64)", "kernel"},
      // https://github.com/noonghunna/club-3090/issues/186
      {"llamacpp-no-gpu-offload", "warning: no usable GPU found, --gpu-layers option will be ignored", "--gpu-layers"},
      // https://github.com/ROCm/legacy-rocm-build/issues/4098
      {"amdgpu-module-not-loaded", "ERROR:root:Driver not initialized (amdgpu not found in modules)", "amdgpu"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/416
      {"torch-directml-missing", "DirectML initialization failed: No module named 'torch_directml'", "torch-directml"},
      // https://github.com/Bforartists/Bforartists/issues/4537
      {"blender-hip-kernel-missing", "\"HIP binary kernel for this graphics card compute capability (11.0) not found.\"", "HIP kernels"},
      // https://github.com/NixOS/nixpkgs/issues/265371
      {"blender-hip-init-invalid-device", "HIP hipInit: Invalid device", "HIP"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/268
      {"torch-directml-no-wheel", "ERROR: Could not find a version that satisfies the requirement torch-directml (from versions: none)",
       "torch-directml"},
      // https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/5410
      {"torch-version-no-wheel", "stderr: ERROR: Could not find a version that satisfies the requirement torch==1.12.1+cu113 (from versions: none)",
       "PyTorch"},
      // https://github.com/vladmandic/sdnext/issues/3835
      {"sdnext-started-without-launcher", "AttributeError: 'Namespace' object has no attribute 'experimental'", "webui.py"},
      // https://github.com/CS1o/Stable-Diffusion-Info/issues/46
      {"torch-not-compiled-with-cuda", "Warning: caught exception 'Torch not compiled with CUDA enabled', memory monitor disabled", "PyTorch"},
      // https://github.com/rocm-arch/rocm-arch/issues/901
      {"hsa-out-of-resources",
       "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the "
       "core runtime library needs to spawn threads or create internal OS-specific events.",
       "HSA_STATUS_ERROR_OUT_OF_RESOURCES"},
      // https://github.com/patientx-cfz/comfyui-rocm/issues/59
      {"therock-pip-index-no-rocm",
       "cmd.exe : ERROR: Could not find a version that satisfies the requirement rocm[devel,libraries] (from versions: none)", "index URL"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/599
      {"webui-skip-torch-cuda-test", "> WARNING: you should not skip torch test unless you want CPU to work.", "--skip-torch-cuda-test"},
      // https://github.com/AUTOMATIC1111/stable-diffusion-webui/pull/6510
      {"webui-nans-in-unet",
       "modules.devices.NansException: A tensor with all NaNs was produced in Unet. This could be either because there's not enough precision to "
       "represent the picture, or because your video card does not support half type. Try using --no-half commandline argument to fix this.",
       "NaN"},
      // https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/6923
      {"webui-nans-in-vae",
       "modules.devices.NansException: A tensor with all NaNs was produced in VAE. This could be because there's not enough precision to represent "
       "the picture. Try adding --no-half-vae commandline argument to fix this. Use --disable-nan-check commandline argument to disable this check.",
       "VAE"},
      // https://github.com/ROCm/hip/issues/3799
      {"torch-rocm-no-hip-gpus", "RuntimeError: No HIP GPUs are available", "GPU"},
      // https://github.com/huggingface/diffusers/issues/5247
      {"torch-c10-dll-load-failed",
       "OSError: [WinError 126] Le module spécifié est introuvable. Error loading "
       "\"C:\\ai\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
       "c10.dll"},
      // https://github.com/prophesier/diff-svc/issues/24
      {"windows-paging-file-too-small",
       "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
       "\"C:\\Users\\phill\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its "
       "dependencies.",
       "paging file"},
      // https://github.com/XavierXiao/Dreambooth-Stable-Diffusion/issues/65
      {"torch-distributed-nccl-windows", "RuntimeError: Distributed package doesn't have NCCL built in", "NCCL"},
      // https://github.com/likelovewant/ollama-for-amd/issues/41
      {"ollama-runner-entry-point-missing", "Error: llama runner process has terminated: exit status 0xc0000139", "0xc0000139"},
      // https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1163
      {"hipblaslt-heuristic-fetch-failed", "rocBLAS warning: hipBlasLT failed, falling back to tensile. ", "Tensile"},
      // https://github.com/ROCm/rocBLAS/issues/1280
      {"rocm-device-library-missing",
       "    clang-15: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to "
       "build without ROCm device library",
       "device library"},
      // https://github.com/ostris/ai-toolkit/issues/91
      {"torch-openmp-runtime-missing",
       "Error running job: [WinError 126] 找不到指定的模块。 Error loading \"C:\\Users\\daizh\\Documents\\LORA "
       "Traning\\ai-toolkit\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
       "fbgemm.dll"},
      // https://github.com/vosen/ZLUDA/issues/470
      {"zluda-gpu-too-old", "Not supported in cuDevicePrimaryCtxGetState(cuDevice, &ctx_flags, &active)", "GPU"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/141
      {"comfyui-zluda-no-cuda-device", "CUDA device detected: None", "no CUDA device"},
      // https://github.com/ddh0/easy-llama/issues/1
      {"hip-cmake-package-not-found", "        Could not find a package configuration file provided by \"hip\" with any of", "hip-config.cmake"},
      // https://github.com/ROCm/TheRock/issues/2177
      {"therock-core-lacks-hip-cmake", "  does not contain the HIP runtime CMake package, expected at one of:", "_rocm_sdk_core"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/592
      {"directml-out-of-memory", "RuntimeError: Could not allocate tensor with 4915840 bytes. There is not enough GPU video memory available!",
       "DirectML"},
      // https://github.com/lemonade-sdk/llamacpp-rocm/issues/79
      {"ggml-rocm-buffer-alloc-failed",
       "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of memory", "VRAM"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/202
      {"comfyui-zluda-hip-sdk-not-found", "HIP SDK not found. Please install ROCm/HIP first.", "HIP SDK"},
      // https://github.com/CS1o/Stable-Diffusion-Info/issues/23
      {"torch-too-old-for-webui",
       "AttributeError: module 'torch.backends.cuda' has no attribute 'enable_cudnn_sdp'. Did you mean: 'enable_flash_sdp'", "PyTorch"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/128
      {"onnxruntime-windows-version-warning",
       "C:\\ComfyUI-Zluda\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_validation.py:26: UserWarning: Unsupported Windows version (11). "
       "ONNX Runtime supports Windows 10 and above, only.",
       "ONNX Runtime"},
      // https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu-forge/issues/55 (its title)
      {"webui-zluda-flag-unrecognized", "launch.py: error: unrecognized arguments: --use-zluda", "--use-zluda"},
      // https://github.com/ROCm/legacy-rocm-build/issues/3054 (its title)
      {"hsa-invalid-isa",
       "[Issue]: rocm 6.1.0 with wheel pytorch at rx7600xt and running stable diffusion => HSA_STATUS_ERROR_INVALID_ISA: The instruction set "
       "architecture is invalid. code: 0x100f",
       "HSA_STATUS_ERROR_INVALID_ISA"},
      // https://github.com/ollama/ollama/issues/9960
      {"ollama-port-in-use",
       "Error: listen tcp 0.0.0.0:11434: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.",
       "ollama"},
      // https://github.com/ollama/ollama/pull/6736
      {"ollama-amdgpu-permission",
       "time=2024-09-10T21:53:24.695Z level=ERROR source=amd_linux.go:364 msg=\"amdgpu devices detected but permission problems block access\" "
       "error=\"permissions not set up properly.  Either run ollama as root, or add you user account to the render group. open /dev/kfd: "
       "permission denied\"",
       "/dev/kfd"},
      // https://github.com/ggml-org/llama.cpp/issues/14698
      {"ggml-vulkan-out-of-device-memory", "alloc_tensor_range: failed to allocate Vulkan0 buffer of size 4697620480", "Vulkan"},
      // https://github.com/justxi/rocm/issues/182
      {"rocblas-tensile-path-wrong", "rocBLAS error: Cannot read /usr/lib64/library/TensileLibrary.dat: No such file or directory", "rocBLAS"},
      // https://github.com/githubcto/FramePack-ZLUDA (README: the message shown every minute during the first compile)
      {"zluda-compiling-kernels", "   \"Compilation is in progress. Please wait...\" every minute.", "compiling"},
      // https://github.com/ggml-org/llama.cpp/issues/25807
      {"rocm-shared-library-not-found",
       "./llama-server: error while loading shared libraries: libhipblas.so.3: cannot open shared object file: No such file or directory",
       "libhipblas.so.3"},
      // https://github.com/ollama/ollama/issues/13308
      {"ollama-gpu-discovery-timeout",
       "ollama  | time=2025-12-03T03:17:28.308Z level=INFO source=runner.go:463 msg=\"failure during GPU discovery\" "
       "OLLAMA_LIBRARY_PATH=\"[/usr/lib/ollama /usr/lib/ollama/cuda_v12]\" extra_envs=map[GGML_CUDA_INIT:1] error=\"failed to finish discovery "
       "before timeout\"",
       "discovery"},
      // https://github.com/patientx/ComfyUI-Zluda/issues/382
      {"comfyui-async-offload-is-compiling", "- **Exception Message:** module 'torch.compiler' has no attribute 'is_compiling'", "is_compiling"},
      // https://github.com/ollama/ollama/pull/4241
      {"ollama-tmp-noexec",
       "Error: unable to start server fork/exec /tmp2/test1/runners/cpu_avx/ollama_llama_server: permission denied.  /tmp2/test1/runners/cpu_avx "
       "may have noexec set.  Set OLLAMA_TMPDIR for server to a writable executable directory",
       "noexec"},
      // https://github.com/vosen/ZLUDA/issues/254
      {"zluda-command-placeholders",
       "Everytime I paste the command \"<ZLUDA_DIRECTORY>\\zluda.exe -- <APPLICATION> <APPLICATION_ARGUMENTS>\" nothing happens and it says \"< was "
       "unexpected at this time.\"",
       "placeholders"},
      // https://github.com/abetlen/llama-cpp-python/pull/1493 (the CMake error it fixed, as indented in the build log)
      {"llama-cpp-python-hip-amdhip64-install",
       "        file INSTALL cannot find \"C:/Program Files/AMD/ROCm/5.7/bin/amdhip64.dll\":", "amdhip64.dll"},
  };
  return rows;
}

class KnownFailure : public ::testing::TestWithParam<RealMessage> {};

TEST_P(KnownFailure, RealMessageIsRecognisedAndExplained) {
  const auto& row = GetParam();
  const auto matches = explain::match_text(kb(), "some output before\n" + row.text + "\nsome output after\n");
  ASSERT_EQ(matches.size(), 1u) << row.text;
  EXPECT_EQ(matches[0].entry->id, row.id);
  EXPECT_EQ(matches[0].line_number, 2u);
  const auto e = explain::explain_match(matches[0], {});
  EXPECT_NE(e.title.find(row.title_has), std::string::npos) << e.title;
  for (const auto* text : {&e.title, &e.cause, &e.fix}) {
    EXPECT_EQ(text->find('{'), std::string::npos) << "unfilled placeholder: " << *text;
  }
  EXPECT_FALSE(e.source.empty());
}

INSTANTIATE_TEST_SUITE_P(Entries, KnownFailure, ::testing::ValuesIn(real_messages()), [](const auto& param_info) {
  std::string name = param_info.param.id;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(KnowledgeBase, BuiltInIsValidAndEveryEntryHasARealMessageTest) {
  auto loaded = explain::builtin_knowledge_base();
  ASSERT_TRUE(loaded) << loaded.error().message;
  std::set<std::string> tested;
  for (const auto& row : real_messages()) tested.insert(row.id);
  for (const auto& e : (*loaded)->entries) {
    EXPECT_TRUE(tested.count(e.id)) << e.id << " has no row in real_messages()";
    EXPECT_FALSE(e.source.empty()) << e.id;
  }
  EXPECT_EQ(tested.size(), (*loaded)->entries.size());
}

TEST(KnowledgeBase, NoEntryMatchesAnotherEntrysSample) {
  for (const auto& entry : kb().entries) {
    for (const auto& sample : entry.samples) {
      const auto matches = explain::match_text(kb(), sample);
      ASSERT_EQ(matches.size(), 1u) << sample;
      EXPECT_EQ(matches[0].entry->id, entry.id) << sample;
    }
  }
}

TEST(KnowledgeBase, ManifestFileIsTheOneCompiledIn) {
  auto text = platform::read_file(std::filesystem::path(ZCUDA_SOURCE_DIR) / "manifests" / "known-failures.json");
  ASSERT_TRUE(text) << text.error().message;
  auto parsed = explain::parse_knowledge_base(*text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->entries.size(), kb().entries.size());
}

TEST(KnowledgeBase, ValidationRefusesBrokenEntries) {
  const std::string good =
      R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "https://a.example"})";
  ASSERT_TRUE(explain::parse_knowledge_base(with_entry(good)));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"id": "x", "title": "t", "patterns": ["(abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "https://a.example"})",
       "regular expression"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["xyz"], "cause": "c", "fix": "f", "facts": [], "source": "https://a.example"})",
       "do not match its sample"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": ["weather"], "source": "https://a.example"})",
       "unknown fact"},
      {R"({"id": "x", "title": "{captured}", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "https://a.example"})",
       "no group"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": []})", "source"},
      {R"({"id": "X Y", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "https://a.example"})",
       "kebab"},
      {good + "," + good, "twice"},
  };
  for (const auto& [entry, says] : bad) {
    auto parsed = explain::parse_knowledge_base(with_entry(entry));
    ASSERT_FALSE(parsed) << entry;
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
    EXPECT_NE(parsed.error().message.find(says), std::string::npos) << parsed.error().message;
  }
  EXPECT_FALSE(explain::parse_knowledge_base("not json"));
  EXPECT_FALSE(explain::parse_knowledge_base(R"({"format": 2, "entries": []})"));
}

TEST(Explain, UnknownTextMatchesNothing) {
  EXPECT_TRUE(explain::match_text(kb(), "Segmentation fault (core dumped)\nTraceback (most recent call last):\n").empty());
  EXPECT_TRUE(explain::match_text(kb(), "").empty());
}

TEST(Explain, SeveralFailuresInALogComeInTheirOrder) {
  const auto matches =
      explain::match_text(kb(), "ZLUDA failed to load MIOpen.dll\r\nlater\r\nNo CUDA GPUs are available\r\nZLUDA failed to load rocblas.dll\r\n");
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0].entry->id, "zluda-perf-library-not-loaded");
  EXPECT_EQ(matches[0].captured, "MIOpen.dll");
  EXPECT_EQ(matches[1].entry->id, "no-gpu-visible");
  EXPECT_EQ(matches[1].line_number, 3u);
}

detect::Profile machine_with_igpu_first() {
  detect::Profile p;
  p.os = platform::Os::windows;
  detect::Gpu igpu;
  igpu.name = "AMD Radeon 780M";
  igpu.vendor_id = detect::kVendorAmd;
  igpu.gfx = "gfx1103";
  igpu.integrated = true;
  igpu.hip_index = 0;
  detect::Gpu dgpu;
  dgpu.name = "AMD Radeon RX 7900 XTX";
  dgpu.vendor_id = detect::kVendorAmd;
  dgpu.gfx = "gfx1100";
  dgpu.hip_index = 1;
  p.gpus = {igpu, dgpu};
  detect::HipInstall hip;
  hip.root = "C:\\Program Files\\AMD\\ROCm\\6.4";
  hip.version = "6.4";
  hip.found_via = "HIP_PATH";
  hip.libraries = {{"rocblas", true, hip.root + "\\bin\\rocblas.dll"}, {"miopen", false, ""}};
  hip.rocblas_archs = {"gfx1100", "gfx1101"};
  hip.kernels["gfx1100"].rocblas = true;
  p.hip_installs = {hip};
  p.driver.adrenalin_version = "25.8.1";
  return p;
}

bool has_fact(const explain::Explanation& e, const std::string& part) {
  return std::any_of(e.facts.begin(), e.facts.end(), [&](const std::string& f) { return f.find(part) != std::string::npos; });
}

TEST(Explain, MessageGfxOfTheIntegratedGpuSaysWhichDeviceToSelect) {
  const auto matches = explain::match_text(kb(), "rocBLAS error: Could not load C:\\x\\TensileLibrary_lazy_gfx1103.dat");
  ASSERT_EQ(matches.size(), 1u);
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  const auto e = explain::explain_match(matches[0], machine);
  EXPECT_EQ(e.gfx, "gfx1103");
  EXPECT_NE(e.cause.find("gfx1103"), std::string::npos) << e.cause;
  EXPECT_TRUE(has_fact(e, "gfx1103 is this machine's integrated GPU")) << ::testing::PrintToString(e.facts);
  EXPECT_TRUE(has_fact(e, "HIP_VISIBLE_DEVICES=1")) << ::testing::PrintToString(e.facts);
  EXPECT_TRUE(has_fact(e, "has no kernels for gfx1103 (it has: gfx1100, gfx1101)")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, WithoutAGfxInTheMessageTheMachinesIsUsed) {
  const auto matches = explain::match_text(kb(), "CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling cublasLtMatmul with transpose_mat1 1");
  ASSERT_EQ(matches.size(), 1u);
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  const auto e = explain::explain_match(matches[0], machine);
  EXPECT_EQ(e.gfx, "gfx1100");  // the discrete GPU a run selects
  EXPECT_NE(e.fix.find("gfx1100"), std::string::npos) << e.fix;
  EXPECT_TRUE(has_fact(e, "hipBLASLt: not in the HIP SDK")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, MiopenAndDriverFactsAndTheUserFolder) {
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  machine.user_folder = "C:\\Users\\Jörg";
  auto e = explain::explain_match(explain::match_text(kb(), "ZLUDA failed to load MIOpen.dll").at(0), machine);
  EXPECT_TRUE(has_fact(e, "MIOpen: not in the HIP SDK at C:\\Program Files\\AMD\\ROCm\\6.4")) << ::testing::PrintToString(e.facts);
  e = explain::explain_match(explain::match_text(kb(), "The procedure entry point hipGraphCreate could not be located").at(0), machine);
  EXPECT_TRUE(has_fact(e, "Adrenalin 25.8.1")) << ::testing::PrintToString(e.facts);
  e = explain::explain_match(explain::match_text(kb(), "Cannot open database file:C:\\Users\\Jörg\\.miopen\\x").at(0), machine);
  EXPECT_TRUE(has_fact(e, "holds non-ASCII letters")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, AntivirusNamesTheQuarantinedFiles) {
  explain::MachineFacts machine;
  machine.quarantined = {"zluda.exe", "nvcuda.dll"};
  const auto e = explain::explain_match(explain::match_text(kb(), "Program:Win32/Wacapew.C!ml").at(0), machine);
  EXPECT_TRUE(has_fact(e, "zluda.exe, nvcuda.dll")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, JsonAndTextCarryTheExplanation) {
  const auto e = explain::explain_match(explain::match_text(kb(), "No CUDA GPUs are available").at(0), {});
  const auto j = explain::to_json(e);
  EXPECT_EQ(j["id"], "no-gpu-visible");
  EXPECT_EQ(j["matched"]["line"], "No CUDA GPUs are available");
  EXPECT_TRUE(j["machine"].is_array());
  const auto text = explain::render_text(e);
  EXPECT_NE(text.find("[no-gpu-visible]"), std::string::npos);
  EXPECT_NE(text.find("fix:"), std::string::npos);
}

std::string utf16(std::string_view ascii, bool little_endian, bool bom) {
  std::string out;
  if (bom) out = little_endian ? "\xFF\xFE" : "\xFE\xFF";
  for (char c : ascii) {
    if (little_endian) {
      out += c;
      out += '\0';
    } else {
      out += '\0';
      out += c;
    }
  }
  return out;
}

std::vector<std::string> ids(const std::vector<explain::Match>& matches) {
  std::vector<std::string> out;
  for (const auto& m : matches) out.push_back(m.entry->id);
  return out;
}

// tqdm redraws its bar with a bare \r: the message after it is a line of its own.
TEST(Matcher, BareCarriageReturnEndsALine) {
  const auto matches = explain::match_text(
      kb(),
      "  0%|          | 0/20 [00:00<?, ?it/s]\r 45%|####5     | 9/20 [00:04<00:05]\rRuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\r\n");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"cudnn-execution-failed"});
  EXPECT_EQ(matches[0].line, "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(matches[0].line_number, 3u);
}

// PowerShell 5.1's `>` writes UTF-16LE with a BOM; a cut log may have lost the BOM.
TEST(Matcher, Utf16LogsWithAndWithoutBom) {
  const std::string text = "loading\r\nRuntimeError: No CUDA GPUs are available\r\n";
  for (auto [little, bom] : {std::pair{true, true}, {true, false}, {false, true}, {false, false}}) {
    const auto matches = explain::match_text(kb(), utf16(text, little, bom));
    ASSERT_EQ(ids(matches), std::vector<std::string>{"no-gpu-visible"}) << little << bom;
    EXPECT_EQ(matches[0].line, "RuntimeError: No CUDA GPUs are available");
    EXPECT_EQ(matches[0].line_number, 2u);
  }
  EXPECT_EQ(explain::normalise_log(utf16("abc", true, true)), "abc");
  EXPECT_EQ(explain::normalise_log("\xEF\xBB\xBFplain"), "plain");
}

TEST(Matcher, AnsiColourCodesInsideTheMessageAreIgnored) {
  const auto matches = explain::match_text(kb(), "\x1b[31mRuntimeError: No CUDA \x1b[1;31mGPUs\x1b[0m are available\x1b[0m\n\x1b]0;title\x07done\n");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"no-gpu-visible"});
  EXPECT_EQ(matches[0].line, "RuntimeError: No CUDA GPUs are available");
}

// A message far into a very long line (a progress bar never ended with \n) is still found,
// wherever the windows the line is searched in begin and end.
TEST(Matcher, MessageAnywhereInAVeryLongLine) {
  const std::string message = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED";
  for (std::size_t at : {std::size_t{0}, std::size_t{4096 - 20}, std::size_t{3072 + 5}, std::size_t{100000}, std::size_t{2'000'000}}) {
    const std::string line = std::string(at, '#') + message + std::string(5000, '=');
    const auto matches = explain::match_text(kb(), "before\n" + line + "\nafter\n");
    ASSERT_EQ(ids(matches), std::vector<std::string>{"cudnn-execution-failed"}) << at;
    EXPECT_EQ(matches[0].line_number, 2u);
    EXPECT_LE(matches[0].line.size(), 4096u);
  }
}

// The gfx is the one the pattern captures, not the first in the line (a TheRock folder name).
TEST(Matcher, TheCapturedGfxWinsAndGfx90cIsATarget) {
  auto matches = explain::match_text(kb(),
                                     "rocBLAS error: Cannot read C:\\x\\_rocm_sdk_libraries_gfx110X_all\\bin\\rocblas\\library\\TensileLibrary.dat: "
                                     "No such file or directory for GPU arch : gfx1103");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].gfx, "gfx1103");
  matches =
      explain::match_text(kb(), "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx90c");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].gfx, "gfx90c");
  EXPECT_NE(explain::explain_match(matches[0], {}).title.find("(gfx90c)"), std::string::npos);
  // Not captured: the last target the line names, and a family folder (gfx110X) is none.
  matches = explain::match_text(kb(), "hipErrorNoBinaryForGpu: Unable to find code object for all current devices! gfx110X_all gfx90a");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].gfx, "gfx90a");
  matches =
      explain::match_text(kb(), "hipErrorNoBinaryForGpu: Unable to find code object for all current devices! (_rocm_sdk_libraries_gfx110X_all)");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_FALSE(matches[0].gfx);
}

// Without a gfx (no message gfx, no machine) the text still reads as a sentence.
TEST(Matcher, NoGfxKnownReadsWell) {
  for (const auto& entry : kb().entries) {
    for (const auto& sample : entry.samples) {
      auto matches = explain::match_text(kb(), sample);
      ASSERT_FALSE(matches.empty()) << sample;
      matches[0].gfx.reset();
      const auto e = explain::explain_match(matches[0], {});
      for (const auto* text : {&e.title, &e.cause, &e.fix}) EXPECT_EQ(text->find("_your GPU"), std::string::npos) << *text;
    }
  }
}

// run: a harmless hipBLASLt warning before the real cuDNN failure does not win, and of several
// fatal messages the last one is explained.
TEST(Matcher, RunExplainsTheLastFatalMessageNotAnEarlierWarning) {
  const std::string log =
      "rocblaslt error: Could not load \"TensileLibrary_lazy_gfx1101.dat\"\n"
      "ZLUDA failed to load MIOpen.dll\n"
      "!!! Exception during processing !!! GET was unable to find an engine to execute this computation\n";
  auto e = explain::explain_failure(log, {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, "cudnn-miopen-failed");
  EXPECT_EQ(e->line_number, 3u);
  // A failure met early and again at the end counts where it last appeared.
  e = explain::explain_failure(
      "RuntimeError: No CUDA GPUs are available\nZLUDA failed to load MIOpen.dll\nRuntimeError: No CUDA GPUs are available\n", {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, "no-gpu-visible");
  EXPECT_EQ(e->line_number, 1u);  // reported at its first line
  e = explain::explain_failure("rocblaslt error: Could not load \"TensileLibrary_lazy_gfx1101.dat\"\nsomething else\n", {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, "hipblaslt-no-kernels-for-gfx");  // only a warning: it is still said
}

// The Windows dialogs never reach stderr: the loader's exit statuses stand for them.
TEST(Matcher, LoaderExitStatusesTieToTheDialogEntries) {
  const std::vector<std::pair<std::uint32_t, std::string>> ties = {
      {0xC0000135u, "hip-runtime-not-found"}, {0xC0000139u, "hip-entry-point-missing"}, {0xC0000142u, "redirect-dll-init-failed"}};
  for (const auto& [status, id] : ties) {
    const auto e = explain::explain_failure("", {}, status);
    ASSERT_TRUE(e) << status;
    EXPECT_EQ(e->id, id);
    EXPECT_NE(e->matched_line.find(fmt::format("0x{:08X}", status)), std::string::npos) << e->matched_line;
    EXPECT_EQ(e->line_number, 0u);
  }
  EXPECT_FALSE(explain::explain_failure("", {}, 0xC0000005u));  // an access violation is not a loader dialog
  // A fatal message in the output says more than the status.
  const auto e = explain::explain_failure("RuntimeError: No CUDA GPUs are available\n", {}, 0xC0000135u);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, "no-gpu-visible");
}

TEST(Matcher, EntryPointDialogsOfOtherModulesAreNotBlamedOnHip) {
  EXPECT_TRUE(
      explain::match_text(kb(), "The procedure entry point PyInit_foo could not be located in the dynamic link library C:\\Python311\\python311.dll")
          .empty());
  const auto matches = explain::match_text(kb(),
                                           "The procedure entry point cuDevicePrimaryCtxRelease_v2 could not be located in the dynamic link library "
                                           "C:\\zluda\\nvcuda.dll");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"hip-entry-point-missing"});
  EXPECT_EQ(matches[0].captured, "cuDevicePrimaryCtxRelease_v2");
}

// rocBLAS gives the Tensile host error's reason on the next line.
TEST(Matcher, TensileHostErrorCarriesItsReasonFromTheNextLine) {
  const auto matches = explain::match_text(kb(),
                                           "rocBLAS error: Could not initialize Tensile host:\n"
                                           "regex_error(error_backref)\n");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"rocblas-tensile-host-init-failed"});
  EXPECT_EQ(matches[0].line, "rocBLAS error: Could not initialize Tensile host: / regex_error(error_backref)");
  const auto e = explain::explain_match(matches[0], {});
  EXPECT_NE(e.cause.find("not a cause of its own"), std::string::npos);
}

TEST(Matcher, HipblasltIsNotCalledRocblas) {
  const auto matches =
      explain::match_text(kb(), "rocblaslt error: Could not load /usr/local/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1200.dat");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"hipblaslt-no-kernels-for-gfx"});
  EXPECT_EQ(matches[0].gfx, "gfx1200");
}

// ComfyUI-Zluda's check prints the family mismatch and the antivirus guess on one line
// (https://github.com/patientx/ComfyUI-Zluda/issues/445): the family mismatch is explained.
TEST(Matcher, FamilyMismatchLineWithTheAntivirusGuess) {
  const std::string line =
      "[ERROR] Detected ZLUDA version: expected ERROR: Could not call zluda_get_nightly_flag: function 'zluda_get_nightly_flag' not found, but "
      "nccl.dll is missing. Likely blocked by AV as false positive.";
  explain::MachineFacts machine;
  machine.runtime_family = "upstream";
  const auto e = explain::explain_failure(line, machine);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, "zluda-family-mismatch");
  EXPECT_TRUE(has_fact(*e, "of the upstream family")) << ::testing::PrintToString(e->facts);
}

// Variants seen in threads: rocBLAS's summary line after "Could not load"
// (https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12) and ComfyUI-Zluda's
// launcher loading nvcuda.dll (https://github.com/patientx/ComfyUI-Zluda/issues/400).
TEST(Matcher, MoreRealVariants) {
  auto matches = explain::match_text(kb(), "rocBLAS error: Could not initialize Tensile library");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"rocblas-lazy-library-missing"});
  matches =
      explain::match_text(kb(),
                          "[INFO] ZLUDA version: 3.9.5 ERROR: Could not load DLL: Could not find module 'D:\\ComfyZ\\zluda\\nvcuda.dll' (or one "
                          "of its dependencies). Try using the full path with constructor syntax.");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"zluda-nvcuda-load-failed"});
  EXPECT_EQ(matches[0].captured, "D:\\ComfyZ\\zluda\\nvcuda.dll");
  // https://github.com/ByronLeeeee/Ollama-For-AMD-Installer/issues/12
  matches = explain::match_text(kb(),
                                "time=2025-07-29T13:31:47.016+02:00 level=WARN source=amd_windows.go:138 msg=\"amdgpu is not supported (supported "
                                "types:[])\" gpu_type=gfx1100 gpu=0 library=C:\\Users\\krdb\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\rocm");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"ollama-amdgpu-not-supported"});
  EXPECT_EQ(matches[0].gfx, "gfx1100");
  matches = explain::match_text(kb(),
                                "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "
                                "\"C:\\ComfyUI-Zluda\\venv\\Lib\\site-packages\\torch\\lib\\cublas64_11.dll\" or one of its dependencies.");
  ASSERT_EQ(ids(matches), std::vector<std::string>{"torch-lib-patched-dll-load-failed"});
}

TEST(Matcher, RequiredLiteral) {
  EXPECT_EQ(explain::required_literal(R"(Cannot read .*TensileLibrary\.dat.*for GPU arch ?: ?(gfx[0-9a-f]+))"), "tensilelibrary.dat");
  EXPECT_EQ(explain::required_literal(R"(No CUDA GPUs are available)"), "no cuda gpus are available");
  EXPECT_EQ(explain::required_literal(R"(abc|defgh)"), "");  // alternatives: nothing is certain
  EXPECT_EQ(explain::required_literal(R"(x(abc|defgh)yz)"), "yz");
  EXPECT_EQ(explain::required_literal(R"(colou?r)"), "colo");
  EXPECT_EQ(explain::required_literal(R"(ab+cd)"), "ab");
  EXPECT_EQ(explain::required_literal(R"(error_code: 2\b)"), "error_code: 2");
  EXPECT_EQ(explain::required_literal(R"(\W+x[a-z]{2,3}yy)"), "yy");
}

// Every built-in pattern has a literal to look for, so a long log costs a substring search per
// line, not a regex run.
TEST(KnowledgeBase, EveryPatternHasAnAnchor) {
  for (const auto& entry : kb().entries) {
    ASSERT_EQ(entry.anchors.size(), entry.patterns.size());
    for (std::size_t p = 0; p < entry.patterns.size(); ++p) {
      EXPECT_GE(entry.anchors[p].size(), 4u) << entry.id << ": " << entry.patterns[p];
    }
  }
}

TEST(KnowledgeBase, SourcesArePublicAddressesAndGfxIsAWord) {
  const std::string base = R"("id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [])";
  for (const auto* source : {"research/users.md item 4", "ollama#4070", "https://github.com/a/b/issues/1 (research/x.md)", "https://x; y"}) {
    auto parsed = explain::parse_knowledge_base(with_entry("{" + base + R"(, "source": ")" + source + "\"}"));
    ASSERT_FALSE(parsed) << source;
    EXPECT_NE(parsed.error().message.find("public"), std::string::npos) << parsed.error().message;
  }
  ASSERT_TRUE(explain::parse_knowledge_base(with_entry("{" + base + R"(, "source": "https://a.example/1; https://b.example/2"})")));
  auto glued = explain::parse_knowledge_base(with_entry(
      R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "TensileLibrary_lazy_{gfx}.dat", "fix": "f", "facts": [], "source": "https://a.example"})"));
  ASSERT_FALSE(glued);
  EXPECT_NE(glued.error().message.find("{gfx}"), std::string::npos);
  auto status = explain::parse_knowledge_base(with_entry("{" + base + R"(, "source": "https://a.example", "exit_statuses": ["135"]})"));
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("NTSTATUS"), std::string::npos);
  auto severity = explain::parse_knowledge_base(with_entry("{" + base + R"(, "source": "https://a.example", "severity": "loud"})"));
  ASSERT_FALSE(severity);
}

// Upstream's nvcuda.dll loads amdhip64_7.dll and falls back to amdhip64_6.dll (zluda/src/os_win.rs):
// "a build made for your HIP major" is outdated advice; ZLUDA supports RX 5000 and newer only.
TEST(KnowledgeBase, HipMajorAndGpuSupportWording) {
  for (const auto& entry : kb().entries) {
    for (const auto* text : {&entry.cause, &entry.fix}) {
      EXPECT_EQ(text->find("made for the HIP major version"), std::string::npos) << entry.id;
      EXPECT_EQ(text->find("ZLUDA build made for your HIP"), std::string::npos) << entry.id;
    }
  }
  const auto e = explain::explain_match(explain::match_text(kb(), "The code execution cannot proceed because amdhip64.dll was not found.").at(0), {});
  EXPECT_NE(e.cause.find("falls back to amdhip64_6.dll"), std::string::npos);
  EXPECT_NE(e.cause.find("too new"), std::string::npos);
  EXPECT_NE(e.fix.find("Polaris or Vega"), std::string::npos);
}

TEST(Explain, DriverThatBrokeZludaIsNamed) {
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  machine.profile->driver.adrenalin_version = "25.5.1";
  const auto e = explain::explain_match(explain::match_text(kb(), "RuntimeError: No CUDA GPUs are available").at(0), machine);
  EXPECT_TRUE(has_fact(e, "the release that broke ZLUDA builds made before it")) << ::testing::PrintToString(e.facts);
  EXPECT_NE(e.cause.find("25.5.1"), std::string::npos);
}

// docs/troubleshooting.md is generated from the knowledge base; the committed page must match it.
TEST(KnowledgeBase, TroubleshootingPageMatchesTheKnowledgeBase) {
  auto page = platform::read_file(std::filesystem::path(ZCUDA_SOURCE_DIR) / "docs" / "troubleshooting.md");
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(*page, explain::render_markdown(kb())) << "regenerate: zcuda explain --list --markdown > docs/troubleshooting.md";
}

}  // namespace
}  // namespace zcuda::test
