#pragma once
// `zcuda explain` and run's own failure explanations: the knowledge base of failure messages users
// report (manifests/known-failures.json), matching text against it, and filling an entry's text
// with this machine's facts.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::explain {

// A fatal message ends the program; a warning may precede the real failure (run explains the last
// fatal message of a failed program, a warning only when there is none).
enum class Severity { fatal, warning };

// What a machine fact says of one cause of a message (a `when` word of the knowledge base).
enum class Signal { driver_25_5_1, integrated_gpu_first, runtime_files_quarantined };
std::string_view to_string(Signal signal);
const std::vector<Signal>& all_signals();

// One of several real causes of one message, with the machine facts that make it likely.
struct Cause {
  std::string id;  // kebab-case, unique within its entry
  std::string cause;
  std::string fix;
  std::vector<Signal> when;  // any of these holding here makes it likely; all ruled out, unlikely
  std::string source;        // public addresses that establish this cause, separated by "; "
};

struct Entry {
  std::string id;                     // stable, kebab-case
  std::string title;                  // may hold {gfx} / {captured}
  std::vector<std::string> patterns;  // ECMAScript regular expressions, case-insensitive, per line
  std::vector<std::string> samples;   // the real message texts from the sources
  std::string cause;                  // empty when the entry has `causes`
  std::string fix;                    // likewise
  // Several real causes, in the order of how often the sources report them; ranked per machine.
  std::vector<Cause> causes;
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
  // Whether an installed runtime's files were checked against its receipt (quarantined is then
  // the answer, empty or not).
  bool quarantine_checked = false;
};

// This machine's facts: detection as a launch uses it (file probes only), the installed runtime's
// quarantined files and family, and the user folder.
MachineFacts gather_machine_facts(const home::Home& home);
// The same from what a caller already has (run: its launch's detection, its runtime's check).
MachineFacts machine_facts(std::optional<detect::Profile> profile, std::vector<std::string> quarantined);

// How likely a cause is on this machine: a fact points at it, nothing here tells, or every fact
// it depends on rules it out.
enum class Likelihood { likely, possible, unlikely };
std::string_view to_string(Likelihood likelihood);

// What one signal says here: yes / no / unknown, and the sentence saying why.
struct SignalReading {
  Signal signal = Signal::driver_25_5_1;
  std::optional<bool> holds;
  std::string because;
};
SignalReading read_signal(Signal signal, const MachineFacts& machine);

struct RankedCause {
  std::string id;
  std::string cause;
  std::string fix;
  std::string source;
  Likelihood likelihood = Likelihood::possible;
  std::vector<std::string> because;  // what this machine says about it
};

// An entry's causes, the likeliest first (likely, then possible, then unlikely; the entry's
// order within each).
std::vector<RankedCause> rank_causes(const Entry& entry, const MachineFacts& machine);

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
  // An entry with several causes: all of them, the likeliest first (cause and fix above are its).
  std::vector<RankedCause> causes;
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

// ---- Reading a log: a file or standard input, bounded.

// The most of a log zcuda reads; a longer one is explained from its last kLogCap bytes.
inline constexpr std::size_t kLogCap = std::size_t{64} << 20;

struct LogInput {
  std::string text;         // what is explained
  std::string source;       // "standard input", or the file as a message names it
  std::uint64_t total = 0;  // bytes in the whole input
  bool cut = false;         // only its end was kept
};

// The bytes kept of a stream, as text the matcher reads: a cut one keeps UTF-16's alignment and
// its BOM, and starts at its first whole line.
LogInput log_from_tail(platform::StreamTail tail, std::string source);
// --file LOG: a regular file only (ErrorKind::unsupported for a FIFO, a directory, a device).
Result<LogInput> read_log_file(const std::filesystem::path& path, std::size_t max_bytes = kLogCap);
// Standard input (a pipe, a redirected file), in binary mode.
Result<LogInput> read_log_stdin(std::size_t max_bytes = kLogCap);
// The sentence saying what was left out, for a cut input.
std::string cut_notice(const LogInput& input);

// ---- Symptoms with no message (manifests/symptoms.json): what this machine shows about them.

// The check a symptom runs on this machine.
enum class SymptomCheck { compute_cache, physx_install, launcher };
std::string_view to_string(SymptomCheck check);

struct Symptom {
  std::string id;
  std::string title;
  std::string seen;  // what the user sees
  std::string cause;
  std::string fix;
  SymptomCheck check = SymptomCheck::compute_cache;
  std::string source;
};

Result<std::vector<Symptom>> parse_symptoms(std::string_view json_text);
Result<const std::vector<Symptom>*> builtin_symptoms();

// What a check found: sentences, and whether it points at the symptom's cause here (nullopt:
// nothing here tells).
struct SymptomFindings {
  std::optional<bool> fits;
  std::vector<std::string> found;
};
struct SymptomReport {
  const Symptom* symptom = nullptr;
  SymptomFindings findings;
};

// Runs the symptom's check on this machine.
SymptomReport check_symptom(const Symptom& symptom, const home::Home& home);

nlohmann::json to_json(const SymptomReport& report);
std::string render_text(const SymptomReport& report);

}  // namespace zcuda::explain
