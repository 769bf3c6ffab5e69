#include <zcuda/stage/for_launch.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/stage/catalogue.hpp>
#include <zcuda/stage/describe.hpp>
#include <zcuda/stage/folder_lock.hpp>

#include "runtime_digests.hpp"
#include "steps.hpp"

namespace zcuda::stage {

namespace fs = std::filesystem;

namespace {

// The journal as it is on disk: replaced (an atomic rename) or removed by anyone who changed the
// folder's stage.
std::optional<platform::FileIdentity> journal_identity(const fs::path& root) {
  auto id = platform::file_identity(journal_path(root));
  if (!id) return std::nullopt;
  return *id;
}

bool same_journal(const std::optional<platform::FileIdentity>& a, const std::optional<platform::FileIdentity>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (platform::same_file(*a, *b) && a->size == b->size && a->mtime_ns == b->mtime_ns);
}

// Whether the folder's journal is that of a complete stage (or there is none): nothing to recover.
Result<bool> nothing_to_recover(const fs::path& root) {
  auto journal = load_journal(root);
  if (!journal) return std::unexpected(journal.error());
  return !*journal || ((*journal)->operation == Operation::stage && (*journal)->complete);
}

// Another process may change the folder between releasing the exclusive lock and taking the
// shared one (neither flock nor LockFileEx converts atomically); a few tries settle it.
constexpr int kHoldTries = 5;

}  // namespace

Result<HeldStage> stage_and_hold(const PlanOptions& options) {
  auto root = app_root(options.app);
  if (!root) return std::unexpected(root.error());
  for (int attempt = 0; attempt < kHoldTries; ++attempt) {
    // Most launches find the folder staged as asked: look under the shared lock.
    auto shared = lock_app_folder(*root, platform::LockMode::shared);
    if (!shared) return std::unexpected(shared.error());
    if (auto area = check_stage_area(*root); !area) return std::unexpected(area.error());
    auto settled = nothing_to_recover(*root);
    if (!settled) return std::unexpected(settled.error());
    if (*settled) {
      auto plan = make_plan(options);
      if (!plan) return std::unexpected(plan.error());
      if (plan->changes() == 0) {
        HeldStage held;
        held.result.unchanged = plan->placements.size();
        held.result.plan = std::move(*plan);
        held.hold = std::move(*shared);
        return held;
      }
    }
    shared->release();
    auto exclusive = lock_app_folder(*root, platform::LockMode::exclusive);
    if (!exclusive) return std::unexpected(exclusive.error());
    auto staged = detail::stage_locked(options, *root);
    if (!staged) return std::unexpected(staged.error());
    const auto written = journal_identity(*root);
    exclusive->release();
    auto again = lock_app_folder(*root, platform::LockMode::shared);
    if (!again) return std::unexpected(again.error());
    if (same_journal(written, journal_identity(*root))) return HeldStage{std::move(*staged), std::move(*again)};
  }
  return fail(ErrorKind::locked, fmt::format("Other zcuda processes kept changing {} while this one staged it", *root),
              "Wait for the other runs, stages or unstages of this folder to finish, then start again.");
}

Result<LaunchStaging> stage_for_launch(const fs::path& program, const fs::path& runtime_dir, platform::Os os, const detect::Profile& detected,
                                       platform::FolderListings* listings) {
  LaunchStaging out;
  if (!uses_cuda_libraries(program, os, listings)) return out;
  if (listings != nullptr) listings->forget(program.parent_path());
  PlanOptions options;
  options.app = program;
  options.runtime_dir = runtime_dir;
  options.os = os;
  options.backends = backends_from_detection(detected);
  auto held = stage_and_hold(options);
  if (!held) return std::unexpected(std::move(held.error()).with_note("the program was not started; --no-stage skips staging"));
  out.hold = std::move(held->hold);
  auto* result = &held->result;
  if (result->recovered) out.notices.push_back(describe(*result->recovered));
  if (result->placed > 0) {
    out.notices.push_back(fmt::format("staged {} file{} into {} (journaled; 'zcuda unstage {}' restores the folder)", result->placed,
                                      result->placed == 1 ? "" : "s", result->plan.root, result->plan.root));
  }
  for (const auto& n : result->plan.names) {
    if (n.service == Service::no_backend || n.service == Service::not_in_runtime || n.service == Service::stub) {
      out.warnings.push_back(fmt::format("{}: {}", n.name, n.note));
    }
  }
  out.result = std::move(*result);
  return out;
}

Result<NativeLaunchFolder> unstage_for_native_launch(const fs::path& program) {
  auto root = app_root(program);
  if (!root) return std::unexpected(root.error());
  NativeLaunchFolder out;
  for (int attempt = 0; attempt < kHoldTries; ++attempt) {
    auto shared = lock_app_folder(*root, platform::LockMode::shared);
    if (!shared) return std::unexpected(shared.error());
    if (!journal_identity(*root)) {
      out.hold = std::move(*shared);
      return out;
    }
    shared->release();
    auto exclusive = lock_app_folder(*root, platform::LockMode::exclusive);
    if (!exclusive) return std::unexpected(exclusive.error());
    auto result = detail::unstage_locked(*root, false);
    if (!result)
      return std::unexpected(std::move(result.error()).with_note("the native run was not started: the folder still holds ZLUDA's libraries"));
    if (result->was_staged) {
      out.notice = fmt::format("unstaged {} for the native run (restored {} file{})", *root, result->restored, result->restored == 1 ? "" : "s");
    }
  }
  return fail(ErrorKind::locked, fmt::format("Other zcuda processes kept staging {} while this one restored it for a native run", *root),
              "Wait for the other runs of this folder to finish, then start again.");
}

Result<std::vector<RuntimeLibrary>> runtime_libraries(const fs::path& runtime_dir, platform::Os os) {
  auto files = scan_runtime(runtime_dir, os);
  if (!files) return std::unexpected(files.error());
  detail::RuntimeDigests digests(runtime_dir);
  std::vector<RuntimeLibrary> out;
  for (const auto& file : *files) {
    auto digest = digests.digest(file.path);
    if (!digest) return std::unexpected(digest.error());
    out.push_back({file.name, *digest});
  }
  return out;
}

}  // namespace zcuda::stage
