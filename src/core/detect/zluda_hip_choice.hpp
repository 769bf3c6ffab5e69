#pragma once
// Which HIP runtime (amdhip64_7.dll or amdhip64_6.dll) upstream ZLUDA would get on Windows.
#include <filesystem>
#include <string>
#include <vector>

namespace zcuda::detect {

struct ZludaHipChoice {
  std::filesystem::path path;  // empty: none would load
  std::string name;            // "amdhip64_7.dll"
  std::string why;
};

// `library_folders`: where ZLUDA looks for the performance libraries, in its order (its own
// folder where known, then %HIP_PATH%\bin). `system_dir`: System32, where the driver puts the
// HIP runtime.
ZludaHipChoice zluda_hip_choice(const std::vector<std::filesystem::path>& library_folders, const std::filesystem::path& system_dir);

}  // namespace zcuda::detect
