#pragma once
// A torch built for ROCm (HIP) runs on AMD GPUs by itself: no ZLUDA is needed, none is placed,
// and the application is launched natively (docs/apps.md, "Native ROCm torch"). Read from
// files only: an inspected folder's code is never run.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/apps/torch_install.hpp>

namespace zcuda::apps {

// What says a torch is a ROCm build; empty when nothing does.
struct NativeRocm {
  std::vector<std::string> why;  // "torch/version.py: hip = '7.1'", "version 2.11.0+rocm7.13", "rocm_sdk_core-7.13.0.dist-info"
  bool therock = false;          // TheRock's packages (rocm-sdk-*, amd-torch-device-*) are installed beside it
};

// The signs, in order: torch/version.py's `hip` set, a `+rocm` version, TheRock's distributions
// in the same site-packages (their .dist-info folders). nullopt for a CUDA or CPU build.
std::optional<NativeRocm> native_rocm(const TorchInstall& torch);

// The sentence `apps`, `run` and `verify --app` say.
std::string native_rocm_text(const TorchInstall& torch, const NativeRocm& rocm);

}  // namespace zcuda::apps
