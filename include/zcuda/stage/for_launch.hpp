#pragma once
// The staging step of a launch, shared by `zcuda run` and `zcuda bench` so both launch a
// program alike: stage its folder when it loads CUDA libraries, and say what was done.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/stage/stage.hpp>

namespace zcuda::stage {

struct LaunchStaging {
  std::optional<StageResult> result;  // none when the program loads no CUDA library
  std::vector<std::string> notices;   // recovery, what was placed
  std::vector<std::string> warnings;  // names the runtime serves badly (stub, no backend, absent)
  // The folder's lock, shared, for as long as the program runs: no other zcuda process stages,
  // unstages or recovers the folder under it (two programs from one folder still run together).
  platform::FileLock hold;
};

// stage(), then the folder's lock kept shared for a launch from it. A folder already staged as
// asked is only looked at, under the shared lock; otherwise the exclusive lock is taken to stage,
// and the stage is checked again once the lock is shared.
struct HeldStage {
  StageResult result;
  platform::FileLock hold;
};
Result<HeldStage> stage_and_hold(const PlanOptions& options);

// Stages `program`'s folder with `runtime_dir` when the program loads CUDA libraries. A folder
// staged with another runtime is restaged; one staged already with this runtime is left as is.
// `listings`: the launch's folder listings; the program's folder is forgotten when staged.
Result<LaunchStaging> stage_for_launch(const std::filesystem::path& program, const std::filesystem::path& runtime_dir, platform::Os os,
                                       const detect::Profile& detected, platform::FolderListings* listings = nullptr);

// For a launch without ZLUDA: restores the folder if zcuda staged it, so no ZLUDA library is
// loaded, and keeps the folder's lock shared for the launch. `notice` says what was restored.
struct NativeLaunchFolder {
  std::optional<std::string> notice;
  platform::FileLock hold;
};
Result<NativeLaunchFolder> unstage_for_native_launch(const std::filesystem::path& program);

struct RuntimeLibrary {
  std::string name;
  std::string sha256;
};
// The CUDA libraries `runtime_dir` serves, with their digests (from the install receipt when it
// vouches for them, else hashed), for records that must say exactly which bytes ran.
Result<std::vector<RuntimeLibrary>> runtime_libraries(const std::filesystem::path& runtime_dir, platform::Os os);

}  // namespace zcuda::stage
