// Carrying out a stage plan under its journal (docs/staging.md, "Journal").
#include <chrono>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/test_hooks.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/stage/folder_lock.hpp>
#include <zcuda/stage/stage.hpp>

#include "runtime_digests.hpp"
#include "steps.hpp"

namespace zcuda::stage {

namespace fs = std::filesystem;

namespace {

using detail::crash_point;

// Windows keeps a running program's files (and the DLLs it loaded) locked: replacing them would
// fail halfway, so check them all first.
Status check_not_in_use(const Plan& plan) {
  if (plan.program) {
    if (auto ok = platform::check_replaceable(*plan.program); !ok) return ok;
  }
  for (const auto& p : plan.placements) {
    if (p.identical || !p.replaces) continue;
    if (auto ok = platform::check_replaceable(plan.root / p.relative); !ok) return ok;
  }
  return {};
}

// Records the placed file's size and last-write time for unstage's identity check. A time within
// a few seconds of now is left out: an edit in the same timestamp tick (2 s on FAT, coarse
// clocks elsewhere) could keep it, so such a step is recognised by hashing instead.
void record_identity(const fs::path& target, Step& step) {
  auto id = platform::file_identity(target);
  if (!id) return;
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (id->mtime_ns > static_cast<std::int64_t>(now_ns) - 3'000'000'000LL) return;
  step.staged_size = id->size;
  step.staged_mtime_ns = id->mtime_ns;
}

// The journal is written twice, durably: with every step planned before the first change, and
// complete at the end. Recovery decides what to undo from what is on disk (classify_target), not
// from a step's recorded state, so a journal write between steps would only cost an fsync each.
Status carry_out(const fs::path& root, Journal& journal) {
  if (auto saved = save_journal(root, journal); !saved) return saved;
  crash_point();
  platform::test_hooks::pause_at("stage-journaled", nullptr);
  for (auto& step : journal.steps) {
    const fs::path target = root / step.path;
    std::error_code ec;
    if (auto real = check_real_path(root, step.path); !real) return real;
    if (step.replaces) {
      const fs::path backup = stage_dir(root) / *step.backup;
      fs::create_directories(backup.parent_path(), ec);
      if (ec) return std::unexpected(io_error("create the backup folder", backup.parent_path(), ec));
      if (auto moved = platform::rename_with_retry(target, backup); !moved) return moved;
      crash_point();
    }
    // Link or copy beside the target, then rename: the target never holds a partial file.
    const fs::path temp = detail::temp_path(target);
    fs::remove(temp, ec);
    // An original kept under a second name (a profile's keep_original_as) is a copy of its own: a
    // hard link would share its bytes with the backup, and an installer's `copy /y` over the kept
    // name would change the backup too.
    auto method = detail::is_inside(step.source, root) ? detail::copy_exact(step.source, temp) : platform::link_or_copy(step.source, temp);
    if (!method) return std::unexpected(method.error());
    if (auto moved = platform::rename_with_retry(temp, target); !moved) return moved;
    crash_point();
    step.method = *method;
    record_identity(target, step);
    step.state = StepState::placed;
  }
  journal.complete = true;
  if (auto saved = save_journal(root, journal); !saved) return saved;
  crash_point();
  return {};
}

Result<StageResult> apply(Plan plan) {
  StageResult result;
  if (auto ok = check_not_in_use(plan); !ok) return std::unexpected(ok.error());
  Journal journal;
  journal.operation = Operation::stage;
  journal.root = path_to_utf8(plan.root);
  journal.runtime = path_to_utf8(plan.runtime_dir);
  journal.zcuda_version = std::string(version());
  journal.started = detail::utc_now("{:%Y-%m-%dT%H:%M:%SZ}");
  detail::RuntimeDigests digests(plan.runtime_dir);
  for (const auto& p : plan.placements) {
    if (p.identical) {
      ++result.unchanged;
      continue;
    }
    Step step;
    step.path = p.relative;
    step.replaces = p.replaces;
    step.source = p.source;
    auto digest = digests.digest(p.source);
    if (!digest) return std::unexpected(digest.error());
    step.staged_sha256 = *digest;
    if (p.replaces) {
      // The original's digest is recorded so that a backup changed since (through a link, by
      // hand) is never restored as if it were the original (undo's verify_backup).
      // An original that is itself a link is backed up as the link; its target is not its bytes.
      if (!platform::is_link(plan.root / p.relative)) {
        auto original = sha256_file(plan.root / p.relative);
        if (!original) return std::unexpected(original.error());
        step.original_sha256 = *original;
      }
      step.backup = fs::path("backup") / p.relative;
      ++result.replaced;
    }
    journal.steps.push_back(std::move(step));
  }
  if (auto done = carry_out(plan.root, journal); !done) {
    // Put the folder back as it was before reporting the failure.
    Error error = std::move(done.error());
    std::error_code ec;
    if (!fs::exists(journal_path(plan.root), ec)) {
      // The journal was never written: nothing in the folder changed (the stage folder, if it
      // was made, is empty and goes).
      fs::remove(stage_dir(plan.root), ec);
      error.notes.push_back("nothing in the folder was changed");
    } else if (auto undone = detail::undo_all(plan.root, journal, std::nullopt, nullptr); undone) {
      error.notes.push_back("the folder was restored to how it was before");
    } else {
      error.notes.push_back("restoring the folder failed too: " + undone.error().message);
      error.notes.push_back("the next zcuda stage or unstage of this folder retries from the journal");
    }
    return std::unexpected(std::move(error));
  }
  result.placed = journal.steps.size();
  result.plan = std::move(plan);
  return result;
}

// Placing one family's files into a folder that holds the other's (an installer's lshqqytiger
// DLLs) leaves it mixed: refused before anything changes, as `run` refuses the launch. Files an
// earlier stage of zcuda's placed there are not the folder's own (the restage replaces them).
Status check_families(const Plan& plan, const PlanOptions& options) {
  family::Identity runtime;
  if (options.runtime_family) {
    runtime = *options.runtime_family;
  } else if (auto read = family::identify_runtime(plan.runtime_dir, plan.os); read) {
    runtime = std::move(*read);
  }
  std::vector<fs::path> placed_by_zcuda;
  if (auto journal = load_journal(plan.root); journal && *journal) {
    for (const auto& step : (*journal)->steps) placed_by_zcuda.push_back((plan.root / step.path).lexically_normal());
  }
  std::vector<fs::path> folders{plan.root};
  if (plan.program && plan.program->parent_path() != plan.root) folders.push_back(plan.program->parent_path());
  return family::check_not_mixed(runtime, folders, plan.os, placed_by_zcuda);
}

}  // namespace

Result<StageResult> detail::stage_locked(const PlanOptions& options, const fs::path& root) {
  if (auto area = check_stage_area(root); !area) return std::unexpected(area.error());
  auto recovered = recover_with(root, std::nullopt);
  if (!recovered) return std::unexpected(recovered.error());
  auto plan = make_plan(options);
  if (!plan) return std::unexpected(plan.error());
  bool restaged = false;
  if (plan->changes() > 0 && plan->journal_present) {
    // Staged before, with other files (a new runtime, --all): undo that stage, then stage anew,
    // so the journal's backups always hold the user's own originals.
    auto undone = unstage_locked(root, false);
    if (!undone) return std::unexpected(undone.error());
    plan = make_plan(options);
    if (!plan) return std::unexpected(plan.error());
    restaged = true;
  }
  if (plan->changes() == 0) {
    StageResult result;
    result.unchanged = plan->placements.size();
    result.plan = std::move(*plan);
    result.recovered = *recovered;
    return result;
  }
  if (auto unmixed = check_families(*plan, options); !unmixed) return std::unexpected(unmixed.error());
  auto result = apply(std::move(*plan));
  if (!result) return result;
  result->recovered = *recovered;
  result->restaged = restaged;
  return result;
}

Result<StageResult> stage(const PlanOptions& options) {
  auto root = app_root(options.app);
  if (!root) return std::unexpected(root.error());
  auto lock = lock_app_folder(*root, platform::LockMode::exclusive);
  if (!lock) return std::unexpected(lock.error());
  return detail::stage_locked(options, *root);
}

}  // namespace zcuda::stage
