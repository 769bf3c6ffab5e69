#pragma once
// Staging: place the runtime's libraries into an app folder with a journal and backups, and
// undo it byte for byte.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/stage/journal.hpp>
#include <zcuda/stage/plan.hpp>

namespace zcuda::stage {

// What the recovery of an interrupted operation did.
struct Recovery {
  Operation interrupted = Operation::stage;  // a stage is rolled back, an unstage finished
  std::size_t steps_undone = 0;
};

// Finishes or rolls back an operation the journal says was interrupted. Every command that
// changes an app folder calls it first. nullopt when there was nothing to recover.
Result<std::optional<Recovery>> recover(const std::filesystem::path& root);

struct StageResult {
  Plan plan;  // the plan that was carried out
  std::optional<Recovery> recovered;
  bool restaged = false;  // an earlier stage was undone first (the runtime changed)
  std::size_t placed = 0;
  std::size_t replaced = 0;   // of `placed`, files that were there before (backed up)
  std::size_t unchanged = 0;  // already identical
};

// Recovers, plans and carries the plan out. Staging twice changes nothing.
Result<StageResult> stage(const PlanOptions& options);

struct UnstageResult {
  std::filesystem::path root;
  std::optional<Recovery> recovered;
  bool was_staged = false;
  std::size_t restored = 0;                 // original files put back
  std::size_t removed = 0;                  // staged files removed that had no original
  std::vector<std::filesystem::path> kept;  // changed staged files kept (with --force)
  std::optional<std::filesystem::path> kept_dir;
};

// Restores the folder from the journal and removes the stage folder. A staged file that changed
// since staging is the user's: refuses (ErrorKind::conflict) unless `force`, and even then keeps
// it under <root>/.zcuda-stage/kept/<time>/.
Result<UnstageResult> unstage(const std::filesystem::path& app, bool force);

nlohmann::json to_json(const StageResult& result);
nlohmann::json to_json(const UnstageResult& result);

}  // namespace zcuda::stage
