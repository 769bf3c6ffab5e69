#pragma once
// Shared between stage and unstage: undoing one journal step, and the test hook that stops the
// process between steps.
#include <filesystem>
#include <optional>
#include <string>

#include <zcuda/base/error.hpp>
#include <zcuda/stage/journal.hpp>
#include <zcuda/stage/stage.hpp>

namespace zcuda::stage::detail {

// Before each change to the folder or the journal: the test hook that interrupts a stage at
// every step (platform/test_hooks.hpp, ZCUDA_TEST_CRASH_AFTER_STEP); nothing in a release build.
void crash_point();

std::filesystem::path temp_path(const std::filesystem::path& target);  // "<target>.zcuda-new"
std::string utc_now(const char* format);

// `file` lies inside `root` (by path; the stage area's links are refused separately).
bool is_inside(const std::filesystem::path& file, const std::filesystem::path& root);
// A copy of its own (never a link), for an original kept under a second name.
Result<platform::PlaceMethod> copy_exact(const std::filesystem::path& source, const std::filesystem::path& target);

// The step's backup still holds the original's bytes (its recorded digest): conflict otherwise,
// so that unstage never "restores" bytes that are not the user's original.
Status verify_backup(const std::filesystem::path& root, const Step& step);

// What a step's target holds now.
enum class Ownership {
  ours,      // the staged bytes: zcuda may remove it
  original,  // the file that was there before (never moved, or already put back)
  users,     // something else: the user's now
  missing,   // nothing there
};
Result<Ownership> classify_target(const std::filesystem::path& root, const Step& step);

// Undoes one step: removes zcuda's file and puts the backup back. A target that is the user's
// is moved to `kept_dir` when given, and is a conflict otherwise. Safe to repeat.
Status undo_step(const std::filesystem::path& root, const Step& step, Ownership ownership, const std::optional<std::filesystem::path>& kept_dir,
                 UnstageResult* counts);

// Undoes every step not yet restored, in reverse, recording progress in the journal, then
// removes the stage folder (a kept/ folder stays).
Status undo_all(const std::filesystem::path& root, Journal& journal, const std::optional<std::filesystem::path>& kept_dir, UnstageResult* counts);

// stage() and unstage() with the folder's lock already held by the caller.
Result<StageResult> stage_locked(const PlanOptions& options, const std::filesystem::path& root);
Result<UnstageResult> unstage_locked(const std::filesystem::path& root, bool force);

// recover(), moving targets that are the user's into `kept_dir` when given (unstage --force).
Result<std::optional<Recovery>> recover_with(const std::filesystem::path& root, const std::optional<std::filesystem::path>& kept_dir);

}  // namespace zcuda::stage::detail
