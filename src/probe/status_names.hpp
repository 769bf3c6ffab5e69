#pragma once
// Names of the status codes of each CUDA library, kept here rather than asked of the library:
// ZLUDA's cuGetErrorName answers CUDA_ERROR_NOT_SUPPORTED, and a broken library should not be
// trusted to describe its own failure. Values: docs/verify.md, from NVIDIA's CUDA 13 headers.
#include <string>

namespace zcuda::probe {

enum class Api { cuda, cublas, cusparse, cufft, cudnn, cusolver, nvrtc, nvml };

// "CUDA_ERROR_STUB_LIBRARY"; "UNKNOWN_STATUS_<n>" for a code not in the table.
std::string status_name(Api api, long long code);

// True when `code` is the library's "not supported" answer (ZLUDA's stubs return these).
bool is_not_supported(Api api, long long code);

// True when cudnnCreate's `code` says cuDNN could not start its backend (sub-libraries, MIOpen
// under ZLUDA, a supported GPU), rather than that it was called wrongly.
bool is_cudnn_backend_unavailable(long long code);

}  // namespace zcuda::probe
