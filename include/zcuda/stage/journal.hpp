#pragma once
// The stage journal: written atomically before each step so that an interrupted stage can be
// rolled back and an interrupted unstage finished. Format: docs/staging.md.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/file_ops.hpp>

namespace zcuda::stage {

// backed_up is only in journals of older zcuda, which saved the journal between the two moves.
enum class StepState { planned, backed_up, placed, restored };
std::string_view to_string(StepState state);

// What a journal was written for: "stage" (rolled back when interrupted) or "unstage" (finished).
enum class Operation { stage, unstage };
std::string_view to_string(Operation operation);

struct Step {
  std::filesystem::path path;                   // relative to the app root
  bool replaces = false;                        // "replace" (a file was there) or "add"
  std::filesystem::path source;                 // the runtime file
  std::optional<platform::PlaceMethod> method;  // once placed
  std::optional<std::string> original_sha256;   // of the replaced file, in journals of older zcuda (now its backup is compared)
  std::string staged_sha256;
  // The placed file's size and last-write time, recorded once placed. With them, a target that
  // is still a hard link of the runtime file with this size and time is ours without hashing
  // (docs/staging.md, "Recognising staged files"). Absent when the time was too recent to trust.
  std::optional<std::uint64_t> staged_size;
  std::optional<std::int64_t> staged_mtime_ns;
  std::optional<std::filesystem::path> backup;  // relative to the stage folder
  StepState state = StepState::planned;
};

struct Journal {
  Operation operation = Operation::stage;  // what was running
  bool complete = false;                   // the operation finished
  std::string root;                        // the app root when written (informational)
  std::string runtime;
  std::string zcuda_version;
  std::string started;  // UTC, ISO 8601
  std::vector<Step> steps;
};

std::string to_json_text(const Journal& journal);
Result<Journal> parse_journal(std::string_view text);

// nullopt when the folder has no journal.
Result<std::optional<Journal>> load_journal(const std::filesystem::path& root);
Status save_journal(const std::filesystem::path& root, const Journal& journal);

}  // namespace zcuda::stage
