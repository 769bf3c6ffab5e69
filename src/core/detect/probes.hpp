#pragma once
// The individual probes of detect_machine. Each fills its part of the profile and records what
// it could not do in profile.probe_notes; none fails the whole detection.
#include <filesystem>
#include <map>
#include <string>

#include <zcuda/base/path_text.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/platform/windows_system.hpp>

#include "system_view.hpp"

namespace zcuda::detect {

// Which rules the probes apply: Windows' for a live Windows machine, Linux's otherwise (a captured
// --root tree is a Linux machine's, whichever OS reads it).
inline bool targets_windows(const Profile& profile) { return profile.os == platform::Os::windows; }

// A path as the profile shows it: with the separators of the machine it describes (a captured
// Linux tree keeps its '/' when read on Windows).
inline std::string path_text(const Profile& profile, const std::filesystem::path& path) {
  return targets_windows(profile) ? path_to_utf8(path) : generic_path_to_utf8(path);
}

// Linux: PCI display devices, DRM cards and KFD topology nodes, merged into profile.gpus.
void probe_linux_gpus(const SystemView& view, Profile& profile);
// Linux: amdgpu module state and /dev/kfd access.
void probe_linux_driver(const SystemView& view, Profile& profile);
// Windows: DXGI adapters and the display class registry key.
void probe_windows_gpus(Profile& profile);
// Marketing names (amdgpu.ids, then zcuda's table, then pci.ids) and gfx from the table.
void name_gpus(const SystemView& view, Profile& profile, bool with_names = true);
// Windows: the variables in the registry that new programs get (see windows::registered_environment).
using RegisteredEnvironment = std::map<std::string, platform::windows::RegisteredVariable>;

// HIP SDK / ROCm installs and their math libraries; with `with_kernels`, their per-gfx kernel files.
void probe_hip_installs(const SystemView& view, const platform::Environment& env, const RegisteredEnvironment& registered, Profile& profile,
                        bool with_kernels = true);
// The HIP runtime library, loaded and asked for its devices; reconciled with profile.gpus.
void probe_hip_runtime(const platform::Environment& env, Profile& profile);
// NVIDIA GPUs, CUDA toolkits, CUDA libraries that could shadow ZLUDA's.
void probe_cuda(const SystemView& view, const platform::Environment& env, Profile& profile);
// Support status per GPU from manifests/gpu-support.json.
void assign_status(Profile& profile);
// The findings: what is wrong and what to do.
void derive_findings(const platform::Environment& env, Profile& profile);

}  // namespace zcuda::detect
