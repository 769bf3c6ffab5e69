#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/enum_words.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/stage/journal.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/platform/files.hpp>
#include <zcuda/stage/plan.hpp>

namespace zcuda::stage {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSchema = 1;

std::optional<StepState> step_state(std::string_view s) {
  return enum_from_word(s, {StepState::planned, StepState::backed_up, StepState::placed, StepState::restored});
}

// A journal path must stay inside its folder: a tampered journal must not make unstage move
// files elsewhere.
bool is_contained(const fs::path& p) {
  if (p.empty() || p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  for (const auto& part : p) {
    if (part == "..") return false;
  }
  return true;
}

// A target inside zcuda's own stage folder would let a journal move its own backups around.
bool names_stage_folder(const fs::path& p) { return !p.empty() && ascii_lower(path_to_utf8(*p.begin())) == ".zcuda-stage"; }

}  // namespace

std::string_view to_string(StepState state) {
  switch (state) {
    case StepState::planned:
      return "planned";
    case StepState::backed_up:
      return "backed_up";
    case StepState::placed:
      return "placed";
    case StepState::restored:
      return "restored";
  }
  return "planned";
}

std::string_view to_string(Operation operation) { return operation == Operation::stage ? "stage" : "unstage"; }

std::string to_json_text(const Journal& journal) {
  json steps = json::array();
  for (const auto& s : journal.steps) {
    steps.push_back({{"path", generic_path_to_utf8(s.path)},
                     {"action", s.replaces ? "replace" : "add"},
                     {"source", path_to_utf8(s.source)},
                     {"method", s.method ? json(platform::to_string(*s.method)) : json(nullptr)},
                     {"original_sha256", s.original_sha256 ? json(*s.original_sha256) : json(nullptr)},
                     {"staged_sha256", s.staged_sha256},
                     {"staged_size", s.staged_size ? json(*s.staged_size) : json(nullptr)},
                     {"staged_mtime_ns", s.staged_mtime_ns ? json(*s.staged_mtime_ns) : json(nullptr)},
                     {"backup", s.backup ? json(generic_path_to_utf8(*s.backup)) : json(nullptr)},
                     {"state", to_string(s.state)}});
  }
  json out = {{"schema", kSchema},
              {"operation", to_string(journal.operation)},
              {"complete", journal.complete},
              {"root", journal.root},
              {"runtime", journal.runtime},
              {"zcuda", journal.zcuda_version},
              {"started", journal.started},
              {"steps", steps}};
  return json_text(out) + "\n";
}

Result<Journal> parse_journal(std::string_view text) {
  auto bad = [](std::string what) {
    return fail(ErrorKind::invalid_input, "The stage journal is damaged: " + what,
                "Restore the files from the backup folder by hand, or delete the .zcuda-stage folder if you are sure the folder is as it should be.");
  };
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("it is not JSON");
  try {
    if (j.at("schema").get<int>() != kSchema) return bad(fmt::format("unknown schema {}", j.at("schema").dump()));
    Journal journal;
    const auto operation = j.at("operation").get<std::string>();
    const auto known = enum_from_word(operation, {Operation::stage, Operation::unstage});
    if (!known) return bad("unknown operation " + operation);
    journal.operation = *known;
    journal.complete = j.at("complete").get<bool>();
    journal.root = j.value("root", "");
    journal.runtime = j.value("runtime", "");
    journal.zcuda_version = j.value("zcuda", "");
    journal.started = j.value("started", "");
    for (const auto& s : j.at("steps")) {
      Step step;
      step.path = path_from_utf8(s.at("path").get<std::string>());
      const auto action = s.at("action").get<std::string>();
      if (action != "add" && action != "replace") return bad("unknown action " + action);
      step.replaces = action == "replace";
      step.source = path_from_utf8(s.at("source").get<std::string>());
      if (!s.at("method").is_null()) {
        const auto method = s.at("method").get<std::string>();
        step.method = platform::place_method_from(method);
        if (!step.method) return bad("unknown method " + method);
      }
      if (!s.at("original_sha256").is_null()) step.original_sha256 = s.at("original_sha256").get<std::string>();
      step.staged_sha256 = s.at("staged_sha256").get<std::string>();
      // Absent in journals of older zcuda: such steps are recognised by hashing.
      if (s.contains("staged_size") && !s.at("staged_size").is_null()) step.staged_size = s.at("staged_size").get<std::uint64_t>();
      if (s.contains("staged_mtime_ns") && !s.at("staged_mtime_ns").is_null()) {
        step.staged_mtime_ns = s.at("staged_mtime_ns").get<std::int64_t>();
      }
      if (!s.at("backup").is_null()) step.backup = path_from_utf8(s.at("backup").get<std::string>());
      auto state = step_state(s.at("state").get<std::string>());
      if (!state) return bad("unknown step state");
      step.state = *state;
      if (!is_contained(step.path) || (step.backup && !is_contained(*step.backup)) || names_stage_folder(step.path)) {
        return bad(fmt::format("a path leaves the folder ({})", generic_path_to_utf8(step.path)));
      }
      if (step.replaces != step.backup.has_value()) return bad("a replaced file has no backup path");
      journal.steps.push_back(std::move(step));
    }
    return journal;
  } catch (const json::exception& e) {
    return bad(e.what());
  }
}

Result<std::optional<Journal>> load_journal(const fs::path& root) {
  const fs::path file = journal_path(root);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<Journal>{};
  auto text = platform::read_file(file, 64u << 20);
  if (!text) return std::unexpected(text.error());
  auto journal = parse_journal(*text);
  if (!journal) return std::unexpected(std::move(journal.error()).with_note(fmt::format("journal: {}", file)));
  return std::optional<Journal>(std::move(*journal));
}

Status save_journal(const fs::path& root, const Journal& journal) { return platform::write_file_atomic(journal_path(root), to_json_text(journal)); }

}  // namespace zcuda::stage
