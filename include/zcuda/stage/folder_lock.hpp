#pragma once
// One zcuda process at a time changes an app folder (stage, unstage, recovery), and none changes
// it while a program launched from it runs: the folder's own lock, exclusive to change it, shared
// to launch from it (docs/staging.md, "One process at a time").
#include <filesystem>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/file_lock.hpp>

namespace zcuda::stage {

// Takes `root`'s lock, waiting (with a notice on stderr) while another zcuda process holds it.
Result<platform::FileLock> lock_app_folder(const std::filesystem::path& root, platform::LockMode mode);

// zcuda's own stage area (.zcuda-stage and everything in it) holds no link or junction, and the
// folders between `root` and `relative` are real folders: a planted link must not make zcuda move
// or delete anything outside the app folder. invalid_input (exit 4) otherwise, nothing touched.
Status check_stage_area(const std::filesystem::path& root);
Status check_real_path(const std::filesystem::path& root, const std::filesystem::path& relative);

}  // namespace zcuda::stage
