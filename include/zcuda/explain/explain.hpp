#pragma once
// `zcuda explain` and run's own failure explanations: the knowledge base of failure messages users
// report (manifests/known-failures.json), matching text against it, and filling an entry's text
// with this machine's facts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>

namespace zcuda::explain {

// A fatal message ends the program; a warning may precede the real failure (run explains the last
// fatal message of a failed program, a warning only when there is none).
enum class Severity { fatal, warning };

struct Entry {
  std::string id;                     // stable, kebab-case
  std::string title;                  // may hold {gfx} / {captured}
  std::vector<std::string> patterns;  // ECMAScript regular expressions, case-insensitive, per line
  std::vector<std::string> samples;   // the real message texts from the sources
  std::string cause;
  std::string fix;
  std::vector<std::string> facts;  // which machine facts matter (see fact_keys())
  std::string source;              // public addresses only (https://...), separated by "; "
  Severity severity = Severity::fatal;
  // The message gives its reason on the following line (rocBLAS's Tensile host error): the
  // matched line then carries that line too.
  bool next_line = false;
  // Windows loader statuses (0xC0000135 ...) a program ends with when this failure is a dialog
  // that never reaches stderr.
  std::vector<std::uint32_t> exit_statuses;
  std::vector<std::regex> compiled;  // patterns, compiled once
  // Per pattern: a lowercase text every match must contain (empty when none is certain), so
  // most lines of a long log are passed over without running the regex engine.
  std::vector<std::string> anchors;
};

struct KnowledgeBase {
  std::vector<Entry> entries;
};

// The fact keys an entry may ask for.
const std::vector<std::string_view>& fact_keys();

// Parses and validates a knowledge base (ErrorKind::invalid_input with the entry named).
Result<KnowledgeBase> parse_knowledge_base(std::string_view json_text);
// The copy compiled into zcuda (manifests/known-failures.json); ErrorKind::internal when broken.
Result<const KnowledgeBase*> builtin_knowledge_base();

struct Match {
  const Entry* entry = nullptr;
  std::string line;                  // the line that matched (trimmed)
  std::size_t line_number = 0;       // 1-based
  std::size_t last_line_number = 0;  // the last line this entry matched (run explains the last fatal one)
  std::string captured;              // the pattern's first group, when it has one
  std::optional<std::string> gfx;    // a gfx target the line names
};

// The text of a log as the matcher reads it: UTF-16 (with a BOM, or detected by its zero bytes)
// turned into UTF-8, and ANSI escape sequences (colours, cursor moves) removed.
std::string normalise_log(std::string_view text);

// The literal text every match of `pattern` contains (lowercase), or "" when none is certain.
std::string required_literal(std::string_view pattern);

// Every entry that some line of `text` matches, once each, in the order of their first line.
// Lines end at \n, \r\n or a bare \r (progress bars redraw with \r); the text is normalised
// first; a line longer than a few thousand characters is searched in overlapping windows.
std::vector<Match> match_text(const KnowledgeBase& kb, std::string_view text);

// The entry a Windows loader status (0xC0000135, 0xC0000139, 0xC0000142) ties to, as a match.
std::optional<Match> match_exit_status(const KnowledgeBase& kb, std::uint32_t status);

// What run explains among the matches of a failed program's output: the last fatal one, else the
// loader status's entry, else the first warning.
std::optional<Match> pick_failure(const std::vector<Match>& matches, std::optional<Match> from_status);

// What the machine says, for the facts entries ask for. Empty when detection was not run.
struct MachineFacts {
  std::optional<detect::Profile> profile;
  std::vector<std::string> quarantined;  // runtime files the install receipt lists, now missing or empty
  std::string user_folder;               // USERPROFILE / HOME
  // The ZLUDA family of the runtime in use ("upstream", "lshqqytiger"), when known.
  std::optional<std::string> runtime_family;
};

// This machine's facts: detection as a launch uses it (file probes only), the installed runtime's
// quarantined files and family, and the user folder.
MachineFacts gather_machine_facts(const home::Home& home);
// The same from what a caller already has (run: its launch's detection, its runtime's check).
MachineFacts machine_facts(std::optional<detect::Profile> profile, std::vector<std::string> quarantined);

struct Explanation {
  std::string id;
  std::string title;
  std::string cause;
  std::string fix;
  std::string source;
  std::string matched_line;
  std::size_t line_number = 0;
  std::optional<std::string> gfx;  // the gfx the text is about (the message's, else the machine's)
  std::vector<std::string> facts;  // sentences about this machine
};

Explanation explain_match(const Match& match, const MachineFacts& machine);

// A failed program's stderr tail (and its Windows exception status, when it has one): the
// explanation pick_failure chooses, if any.
std::optional<Explanation> explain_failure(std::string_view stderr_tail, const MachineFacts& machine,
                                           std::optional<std::uint32_t> exit_status = std::nullopt);

nlohmann::json to_json(const Explanation& explanation);
// Text for a terminal: title, cause, fix, this machine, source.
std::string render_text(const Explanation& explanation);
// The troubleshooting page (docs/troubleshooting.md): every entry, unfilled.
std::string render_markdown(const KnowledgeBase& kb);

}  // namespace zcuda::explain
