#pragma once
// `zcuda explain` and run's own failure explanations: the knowledge base of failure messages users
// report (manifests/known-failures.json), matching text against it, and filling an entry's text
// with this machine's facts.
#include <cstddef>
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

struct Entry {
  std::string id;                     // stable, kebab-case
  std::string title;                  // may hold {gfx} / {captured}
  std::vector<std::string> patterns;  // ECMAScript regular expressions, case-insensitive, per line
  std::vector<std::string> samples;   // the real message texts from the sources
  std::string cause;
  std::string fix;
  std::vector<std::string> facts;  // which machine facts matter (see kFactKeys)
  std::string source;
  std::vector<std::regex> compiled;  // patterns, compiled once
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
  std::string line;                // the line that matched (trimmed)
  std::size_t line_number = 0;     // 1-based
  std::string captured;            // the pattern's first group, when it has one
  std::optional<std::string> gfx;  // a gfx target the line names
};

// Every entry that some line of `text` matches, once each, in the order of their first line.
std::vector<Match> match_text(const KnowledgeBase& kb, std::string_view text);

// What the machine says, for the facts entries ask for. Empty when detection was not run.
struct MachineFacts {
  std::optional<detect::Profile> profile;
  std::vector<std::string> quarantined;  // runtime files the install receipt lists, now missing or empty
  std::string user_folder;               // USERPROFILE / HOME
};

// This machine's facts: detection as a launch uses it (file probes only), the installed runtime's
// quarantined files and the user folder.
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

// A failed program's stderr tail: the explanation of the first known failure in it, if any.
std::optional<Explanation> explain_failure(std::string_view stderr_tail, const MachineFacts& machine);

nlohmann::json to_json(const Explanation& explanation);
// Text for a terminal: title, cause, fix, this machine, source.
std::string render_text(const Explanation& explanation);
// The troubleshooting page (docs/troubleshooting.md): every entry, unfilled.
std::string render_markdown(const KnowledgeBase& kb);

}  // namespace zcuda::explain
