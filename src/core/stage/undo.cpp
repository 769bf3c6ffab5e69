// Undoing stage steps: shared by unstage and by the recovery of an interrupted stage.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/file_ops.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/test_hooks.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/stage/folder_lock.hpp>
#include "steps.hpp"

namespace zcuda::stage {

namespace fs = std::filesystem;

namespace {
// Removes `dir` and the empty folders under it; anything with files in it stays. Never through a
// link: a planted one must not make zcuda remove folders elsewhere.
void remove_empty_folders(const fs::path& dir) {
  std::error_code ec;
  if (platform::is_link(dir) || !fs::is_directory(fs::symlink_status(dir, ec))) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) remove_empty_folders(entry.path());
  }
  if (fs::is_empty(dir, ec)) fs::remove(dir, ec);
}
}  // namespace

namespace detail {

void crash_point() { platform::test_hooks::crash_point(); }

fs::path temp_path(const fs::path& target) {
  fs::path temp = target;
  temp += ".zcuda-new";
  return temp;
}

bool is_inside(const fs::path& file, const fs::path& root) {
  const auto relative = file.lexically_normal().lexically_relative(root.lexically_normal());
  return !relative.empty() && *relative.begin() != ".." && !relative.is_absolute();
}

Result<platform::PlaceMethod> copy_exact(const fs::path& source, const fs::path& target) {
  std::error_code ec;
  if (!fs::copy_file(source, target, fs::copy_options::none, ec) || ec) return std::unexpected(io_error("copy", source, ec));
  return platform::PlaceMethod::copy;
}

Status verify_backup(const fs::path& root, const Step& step) {
  // Journals of older zcuda recorded no digest, nor does a stage for an original that was a link.
  if (!step.backup || !step.original_sha256) return {};
  const fs::path backup = stage_dir(root) / *step.backup;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(backup, ec))) return {};
  if (platform::is_link(backup)) {
    return fail(ErrorKind::conflict, fmt::format("The backup of {} is now a link; nothing was restored", root / step.path),
                fmt::format("zcuda backed up a file there, not a link. Check {} and restore the original by hand.", backup));
  }
  auto digest = sha256_file(backup);
  if (!digest) return std::unexpected(digest.error());
  if (*digest == *step.original_sha256) return {};
  Error error{ErrorKind::conflict,
              fmt::format("The backup of {} no longer holds the original bytes; nothing was restored", root / step.path),
              fmt::format("Something changed the backup after staging (a hard link to it overwritten, an edit by hand). zcuda keeps "
                          "every file as it is: compare {} with the original you expect and restore it by hand.",
                          backup),
              {}};
  error.notes.push_back(fmt::format("recorded: {}", *step.original_sha256));
  error.notes.push_back(fmt::format("backup now: {}", *digest));
  return std::unexpected(std::move(error));
}

std::string utc_now(const char* format) {
  auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format(fmt::runtime(format), now);
}

namespace {
// Whether two files hold the same bytes (the target and the backup of the original it replaced).
Result<bool> same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const auto size_a = fs::file_size(a, ec);
  if (ec) return std::unexpected(io_error("read", a, ec));
  const auto size_b = fs::file_size(b, ec);
  if (ec) return std::unexpected(io_error("read", b, ec));
  if (size_a != size_b) return false;
  std::ifstream in_a(a, std::ios::binary), in_b(b, std::ios::binary);
  if (!in_a) return std::unexpected(io_error("open", a, std::error_code(errno, std::generic_category())));
  if (!in_b) return std::unexpected(io_error("open", b, std::error_code(errno, std::generic_category())));
  std::vector<char> block_a(1u << 16), block_b(1u << 16);
  for (;;) {
    in_a.read(block_a.data(), static_cast<std::streamsize>(block_a.size()));
    in_b.read(block_b.data(), static_cast<std::streamsize>(block_b.size()));
    if (in_a.gcount() != in_b.gcount()) return false;
    const auto n = static_cast<std::size_t>(in_a.gcount());
    if (n == 0) return true;
    if (!std::equal(block_a.begin(), block_a.begin() + static_cast<std::ptrdiff_t>(n), block_b.begin())) return false;
  }
}
}  // namespace

Result<Ownership> classify_target(const fs::path& root, const Step& step) {
  const fs::path target = root / step.path;
  std::error_code ec;
  auto status = fs::symlink_status(target, ec);
  if (ec || !fs::exists(status)) return Ownership::missing;
  const bool has_backup = step.backup && fs::exists(fs::symlink_status(stage_dir(root) / *step.backup, ec));
  // A replaced file whose backup is gone was never moved, or has been put back already.
  if (step.replaces && !has_backup) return Ownership::original;
  if (!fs::is_regular_file(status)) return Ownership::users;
  // Still a hard link of the runtime file, with the size and last-write time recorded when it was
  // placed: the staged bytes, without reading them. An edit in place changes the time; a
  // replacement is another file.
  if (step.staged_size && step.staged_mtime_ns) {
    auto target_id = platform::file_identity(target);
    auto source_id = platform::file_identity(step.source);
    if (target_id && source_id && platform::same_file(*target_id, *source_id) && target_id->size == *step.staged_size &&
        target_id->mtime_ns == *step.staged_mtime_ns) {
      return Ownership::ours;
    }
  }
  auto digest = sha256_file(target);
  if (!digest) return std::unexpected(digest.error());
  if (*digest == step.staged_sha256) return Ownership::ours;
  if (step.original_sha256 && *digest == *step.original_sha256) return Ownership::original;  // journals of older zcuda
  if (has_backup) {
    // The original put back by hand while its backup is still there.
    auto same = same_bytes(target, stage_dir(root) / *step.backup);
    if (!same) return std::unexpected(same.error());
    if (*same) return Ownership::original;
  }
  return Ownership::users;
}

Status undo_step(const fs::path& root, const Step& step, Ownership ownership, const std::optional<fs::path>& kept_dir, UnstageResult* counts) {
  const fs::path target = root / step.path;
  std::error_code ec;
  if (auto real = check_real_path(root, step.path); !real) return real;
  fs::remove(temp_path(target), ec);  // a placement cut short; only zcuda writes that name
  const fs::path backup = step.backup ? stage_dir(root) / *step.backup : fs::path();
  bool has_backup = step.backup && fs::exists(fs::symlink_status(backup, ec));
  switch (ownership) {
    case Ownership::missing:
      break;
    case Ownership::ours:
      if (!fs::remove(target, ec) && ec) return std::unexpected(io_error("remove", target, ec));
      crash_point();
      if (!step.replaces && counts) ++counts->removed;
      break;
    case Ownership::original:
      // The original is in place; a backup copy of the same bytes is no longer needed.
      if (has_backup) {
        fs::remove(backup, ec);
        has_backup = false;
      }
      break;
    case Ownership::users: {
      if (!kept_dir) {
        return fail(ErrorKind::conflict, fmt::format("{} changed since it was staged", target),
                    "It is yours now. Run 'zcuda unstage --force' to restore the original anyway; the changed file is kept in the stage folder.");
      }
      const fs::path keep = *kept_dir / step.path;
      fs::create_directories(keep.parent_path(), ec);
      if (auto moved = platform::rename_with_retry(target, keep); !moved) return moved;
      crash_point();
      if (counts) counts->kept.push_back(keep);
      break;
    }
  }
  if (has_backup) {
    if (auto moved = platform::rename_with_retry(backup, target); !moved) return moved;
    crash_point();
    if (counts) ++counts->restored;
  }
  return {};
}

Status undo_all(const fs::path& root, Journal& journal, const std::optional<fs::path>& kept_dir, UnstageResult* counts) {
  // Every backup is checked before the first change: a refusal keeps everything as it is.
  for (const auto& step : journal.steps) {
    if (step.state == StepState::restored) continue;
    if (auto real = check_real_path(root, step.path); !real) return real;
    if (auto kept = verify_backup(root, step); !kept) return kept;
  }
  for (auto it = journal.steps.rbegin(); it != journal.steps.rend(); ++it) {
    if (it->state == StepState::restored) continue;
    auto ownership = classify_target(root, *it);
    if (!ownership) return std::unexpected(ownership.error());
    if (auto undone = undo_step(root, *it, *ownership, kept_dir, counts); !undone) return undone;
    it->state = StepState::restored;
    if (auto saved = save_journal(root, journal); !saved) return saved;
    crash_point();
  }
  // Backups are all back in place: only empty folders can remain there.
  const fs::path dir = stage_dir(root);
  remove_empty_folders(dir / "backup");
  std::error_code ec;
  if (fs::exists(dir / "backup", ec)) {
    return fail(ErrorKind::io, fmt::format("Files remain in {} after restoring", dir / "backup"),
                "They are originals zcuda could not put back; move them into the app folder by hand.");
  }
  fs::remove(journal_path(root), ec);
  if (ec) return std::unexpected(io_error("remove", journal_path(root), ec));
  crash_point();
  remove_empty_folders(dir);
  return {};
}

}  // namespace detail

Result<std::optional<Recovery>> recover(const fs::path& root) {
  auto lock = lock_app_folder(root, platform::LockMode::exclusive);
  if (!lock) return std::unexpected(lock.error());
  if (auto area = check_stage_area(root); !area) return std::unexpected(area.error());
  return detail::recover_with(root, std::nullopt);
}

Result<std::optional<Recovery>> detail::recover_with(const fs::path& root, const std::optional<fs::path>& kept_dir) {
  auto journal = load_journal(root);
  if (!journal) return std::unexpected(journal.error());
  // Stopped after the journal was removed: only empty folders can be left.
  if (!*journal) remove_empty_folders(stage_dir(root));
  if (!*journal || ((*journal)->operation == Operation::stage && (*journal)->complete)) return std::optional<Recovery>{};
  Journal& j = **journal;
  Recovery recovery{j.operation, 0};
  for (const auto& s : j.steps) {
    if (s.state != StepState::restored) ++recovery.steps_undone;
  }
  // An interrupted stage is rolled back (the backups are all it needs; the runtime may be gone).
  // An interrupted unstage is finished.
  if (auto undone = detail::undo_all(root, j, kept_dir, nullptr); !undone) {
    Error error = std::move(undone.error());
    error.notes.push_back(fmt::format("while recovering an interrupted {} of {}", to_string(recovery.interrupted), root));
    return std::unexpected(std::move(error));
  }
  return std::optional<Recovery>(recovery);
}

Result<UnstageResult> unstage(const fs::path& app, bool force) {
  auto root = app_root(app);
  if (!root) return std::unexpected(root.error());
  auto lock = lock_app_folder(*root, platform::LockMode::exclusive);
  if (!lock) return std::unexpected(lock.error());
  return detail::unstage_locked(*root, force);
}

Result<UnstageResult> detail::unstage_locked(const fs::path& given_root, bool force) {
  if (auto area = check_stage_area(given_root); !area) return std::unexpected(area.error());
  const std::optional<fs::path> root = given_root;
  UnstageResult result;
  result.root = *root;
  const fs::path kept_candidate = stage_dir(*root) / "kept" / detail::utc_now("{:%Y%m%dT%H%M%SZ}");
  auto recovered = detail::recover_with(*root, force ? std::optional<fs::path>(kept_candidate) : std::nullopt);
  if (!recovered) return std::unexpected(recovered.error());
  result.recovered = *recovered;
  auto loaded = load_journal(*root);
  if (!loaded) return std::unexpected(loaded.error());
  if (!*loaded) return result;
  Journal& journal = **loaded;
  result.was_staged = true;

  // Check every file before touching any: unstage refuses as a whole, not halfway.
  std::vector<detail::Ownership> owners;
  std::vector<fs::path> changed;
  for (const auto& step : journal.steps) {
    if (auto real = check_real_path(*root, step.path); !real) return std::unexpected(real.error());
    auto ownership = detail::classify_target(*root, step);
    if (!ownership) return std::unexpected(ownership.error());
    owners.push_back(*ownership);
    if (*ownership == detail::Ownership::users) changed.push_back(*root / step.path);
    if (auto kept = detail::verify_backup(*root, step); !kept) return std::unexpected(kept.error());
  }
  if (!changed.empty() && !force) {
    Error error{ErrorKind::conflict,
                fmt::format("{} staged file{} changed since staging; nothing was restored", changed.size(), changed.size() == 1 ? "" : "s"),
                "They are yours now. Run 'zcuda unstage --force' to restore the originals anyway; the changed files are then kept in "
                "the .zcuda-stage/kept folder of the app.",
                {}};
    for (const auto& c : changed) error.notes.push_back(fmt::format("changed: {}", c));
    return std::unexpected(std::move(error));
  }
  if (!changed.empty()) result.kept_dir = kept_candidate;
  // Windows: a running program holds the staged DLLs it loaded; restoring under it would stop
  // halfway, so refuse before the first change.
  for (std::size_t i = 0; i < journal.steps.size(); ++i) {
    if (journal.steps[i].state == StepState::restored || owners[i] == detail::Ownership::missing) continue;
    if (auto free = platform::check_replaceable(*root / journal.steps[i].path); !free) return std::unexpected(free.error());
  }

  journal.operation = Operation::unstage;
  journal.complete = false;
  if (auto saved = save_journal(*root, journal); !saved) return std::unexpected(saved.error());
  detail::crash_point();
  for (std::size_t i = journal.steps.size(); i-- > 0;) {
    Step& step = journal.steps[i];
    if (step.state == StepState::restored) continue;
    if (auto undone = detail::undo_step(*root, step, owners[i], result.kept_dir, &result); !undone) {
      return std::unexpected(std::move(undone.error()).with_note("run 'zcuda unstage' again to finish; the journal records what is done"));
    }
    step.state = StepState::restored;
    if (auto saved = save_journal(*root, journal); !saved) return std::unexpected(saved.error());
    detail::crash_point();
  }
  if (auto finished = detail::undo_all(*root, journal, result.kept_dir, &result); !finished) return std::unexpected(finished.error());
  return result;
}

}  // namespace zcuda::stage
