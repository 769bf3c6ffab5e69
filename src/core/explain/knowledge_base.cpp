// Loading and validating manifests/known-failures.json.
#include <zcuda/explain/explain.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/whole_number.hpp>
#include <zcuda/manifest/knowledge.hpp>

namespace zcuda::explain {

namespace {

using nlohmann::json;

Result<std::string> text_field(const json& e, const char* name, const std::string& where) {
  if (!e.contains(name) || !e.at(name).is_string() || e.at(name).get<std::string>().empty()) {
    return fail(ErrorKind::invalid_input, fmt::format("{}: \"{}\" must be a non-empty string", where, name));
  }
  return e.at(name).get<std::string>();
}

Result<std::vector<std::string>> list_field(const json& e, const char* name, const std::string& where, bool may_be_empty) {
  if (!e.contains(name) || !e.at(name).is_array()) return fail(ErrorKind::invalid_input, fmt::format("{}: \"{}\" must be a list", where, name));
  std::vector<std::string> out;
  for (const auto& v : e.at(name)) {
    if (!v.is_string() || v.get<std::string>().empty())
      return fail(ErrorKind::invalid_input, fmt::format("{}: \"{}\" holds a non-string or empty item", where, name));
    out.push_back(v.get<std::string>());
  }
  if (out.empty() && !may_be_empty) return fail(ErrorKind::invalid_input, fmt::format("{}: \"{}\" is empty", where, name));
  return out;
}

// The texts of an entry that are filled with {gfx} and {captured}: title, cause, fix, and each
// alternative cause's.
std::vector<const std::string*> texts(const Entry& e) {
  std::vector<const std::string*> out = {&e.title, &e.cause, &e.fix};
  for (const auto& c : e.causes) {
    out.push_back(&c.cause);
    out.push_back(&c.fix);
  }
  return out;
}

bool uses(const Entry& e, std::string_view placeholder) {
  const auto all = texts(e);
  return std::any_of(all.begin(), all.end(), [&](const std::string* t) { return t->find(placeholder) != std::string::npos; });
}

// {gfx} glued to a word ("TensileLibrary_lazy_{gfx}.dat") reads wrongly when the gfx is unknown
// and "your GPU's gfx target" stands in for it.
bool gfx_inside_word(const Entry& e) {
  for (const std::string* text : texts(e)) {
    for (std::size_t at = text->find("{gfx}"); at != std::string::npos; at = text->find("{gfx}", at + 1)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>((*text)[at - 1])) || (*text)[at - 1] == '_')) return true;
    }
  }
  return false;
}

// Sources are public addresses, separated by "; ": never a file of ours or a bare issue number.
std::optional<std::string> non_public_source(const std::string& source) {
  std::size_t at = 0;
  while (at <= source.size()) {
    const std::size_t end = std::min(source.find("; ", at), source.size());
    const std::string part = source.substr(at, end - at);
    if (!part.starts_with("https://") || part.find(' ') != std::string::npos) return part;
    at = end + 2;
  }
  return std::nullopt;
}

Result<std::uint32_t> parse_status(const std::string& text, const std::string& where) {
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const auto value = whole_number<std::uint32_t>(std::string_view(text).substr(hex ? 2 : 0), 16);
  if (!hex || !value || (*value & 0xF0000000u) != 0xC0000000u) {
    return fail(ErrorKind::invalid_input, fmt::format("{}: \"exit_statuses\" holds {}, not an NTSTATUS error such as 0xC0000135", where, text));
  }
  return *value;
}

bool is_kebab(const std::string& id) {
  return std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// "causes": two or more alternatives, each with its own id, cause, fix, source and the signals
// ("when") that make it likely here.
Result<std::vector<Cause>> parse_causes(const json& list, const std::string& where) {
  if (!list.is_array() || list.size() < 2) {
    return fail(ErrorKind::invalid_input, where + ": \"causes\" must be a list of two or more causes (one cause: write \"cause\" and \"fix\")");
  }
  std::vector<Cause> out;
  std::set<std::string> ids;
  std::size_t index = 0;
  for (const auto& c : list) {
    std::string at = fmt::format("{}: causes[{}]", where, index++);
    if (!c.is_object()) return fail(ErrorKind::invalid_input, at + " is not an object");
    for (const auto& [key, value] : c.items()) {
      if (key != "id" && key != "cause" && key != "fix" && key != "when" && key != "source") {
        return fail(ErrorKind::invalid_input, fmt::format("{}: unknown field \"{}\" (id, cause, fix, when, source)", at, key));
      }
    }
    Cause cause;
    for (auto [name, target] : {std::pair{"id", &cause.id}, {"cause", &cause.cause}, {"fix", &cause.fix}, {"source", &cause.source}}) {
      auto value = text_field(c, name, at);
      if (!value) return std::unexpected(value.error());
      *target = *value;
    }
    at += " (" + cause.id + ")";
    if (!is_kebab(cause.id)) return fail(ErrorKind::invalid_input, at + ": the id must be kebab-case");
    if (!ids.insert(cause.id).second) return fail(ErrorKind::invalid_input, at + ": the id is used twice in this entry");
    if (auto part = non_public_source(cause.source)) {
      return fail(ErrorKind::invalid_input,
                  fmt::format("{}: the source \"{}\" is not a public https:// address (separate several with \"; \")", at, *part));
    }
    auto when = list_field(c, "when", at, true);
    if (!when) return std::unexpected(when.error());
    for (const auto& word : *when) {
      const auto& all = all_signals();
      auto it = std::find_if(all.begin(), all.end(), [&](Signal s) { return to_string(s) == word; });
      if (it == all.end()) {
        std::vector<std::string_view> words;
        for (auto s : all) words.push_back(to_string(s));
        return fail(ErrorKind::invalid_input, fmt::format("{}: unknown signal \"{}\" in \"when\" ({})", at, word, fmt::join(words, ", ")));
      }
      if (std::find(cause.when.begin(), cause.when.end(), *it) != cause.when.end()) {
        return fail(ErrorKind::invalid_input, fmt::format("{}: the signal \"{}\" is named twice", at, word));
      }
      cause.when.push_back(*it);
    }
    out.push_back(std::move(cause));
  }
  return out;
}

}  // namespace

const std::vector<std::string_view>& fact_keys() {
  static const std::vector<std::string_view> keys = {
      "gpus",           "message_gpu", "driver",     "hip_sdk",       "miopen", "rocblas_kernels", "hipblaslt_kernels",
      "cuda_shadowing", "user_folder", "quarantine", "runtime_family"};
  return keys;
}

Result<KnowledgeBase> parse_knowledge_base(std::string_view json_text) {
  const json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return fail(ErrorKind::invalid_input, "The knowledge base is not a JSON object");
  if (!doc.contains("format") || doc.at("format") != 1) return fail(ErrorKind::invalid_input, "The knowledge base's \"format\" must be 1");
  if (!doc.contains("entries") || !doc.at("entries").is_array()) return fail(ErrorKind::invalid_input, "The knowledge base has no \"entries\" list");
  KnowledgeBase kb;
  std::set<std::string> ids;
  std::size_t index = 0;
  for (const auto& e : doc.at("entries")) {
    std::string where = fmt::format("entries[{}]", index++);
    if (!e.is_object()) return fail(ErrorKind::invalid_input, where + " is not an object");
    Entry entry;
    auto id = text_field(e, "id", where);
    if (!id) return std::unexpected(id.error());
    entry.id = *id;
    where += " (" + entry.id + ")";
    if (!is_kebab(entry.id)) return fail(ErrorKind::invalid_input, where + ": the id must be kebab-case");
    if (!ids.insert(entry.id).second) return fail(ErrorKind::invalid_input, where + ": the id is used twice");
    for (auto [name, target] : {std::pair{"title", &entry.title}, {"source", &entry.source}}) {
      auto value = text_field(e, name, where);
      if (!value) return std::unexpected(value.error());
      *target = *value;
    }
    // One cause (cause and fix), or several (causes), never both: two texts would disagree.
    if (e.contains("causes")) {
      if (e.contains("cause") || e.contains("fix")) {
        return fail(ErrorKind::invalid_input, where + ": an entry with \"causes\" has no \"cause\" or \"fix\" of its own (each cause has its own)");
      }
      auto causes = parse_causes(e.at("causes"), where);
      if (!causes) return std::unexpected(causes.error());
      entry.causes = std::move(*causes);
    } else {
      for (auto [name, target] : {std::pair{"cause", &entry.cause}, {"fix", &entry.fix}}) {
        auto value = text_field(e, name, where);
        if (!value) return std::unexpected(value.error());
        *target = *value;
      }
    }
    if (auto part = non_public_source(entry.source)) {
      return fail(ErrorKind::invalid_input,
                  fmt::format("{}: the source \"{}\" is not a public https:// address (separate several with \"; \")", where, *part));
    }
    if (gfx_inside_word(entry)) return fail(ErrorKind::invalid_input, where + ": {gfx} is glued to a word; write it as a word of its own");
    if (e.contains("severity")) {
      const auto& sev = e.at("severity");
      if (sev == "fatal") {
        entry.severity = Severity::fatal;
      } else if (sev == "warning") {
        entry.severity = Severity::warning;
      } else {
        return fail(ErrorKind::invalid_input, where + ": \"severity\" must be \"fatal\" or \"warning\"");
      }
    }
    if (e.contains("next_line")) {
      if (!e.at("next_line").is_boolean()) return fail(ErrorKind::invalid_input, where + ": \"next_line\" must be true or false");
      entry.next_line = e.at("next_line").get<bool>();
    }
    if (e.contains("exit_statuses")) {
      auto statuses = list_field(e, "exit_statuses", where, true);
      if (!statuses) return std::unexpected(statuses.error());
      for (const auto& text : *statuses) {
        auto status = parse_status(text, where);
        if (!status) return std::unexpected(status.error());
        entry.exit_statuses.push_back(*status);
      }
    }
    auto patterns = list_field(e, "patterns", where, false);
    if (!patterns) return std::unexpected(patterns.error());
    entry.patterns = *patterns;
    auto samples = list_field(e, "samples", where, false);
    if (!samples) return std::unexpected(samples.error());
    entry.samples = *samples;
    auto facts = list_field(e, "facts", where, true);
    if (!facts) return std::unexpected(facts.error());
    entry.facts = *facts;
    for (const auto& f : entry.facts) {
      if (std::find(fact_keys().begin(), fact_keys().end(), f) == fact_keys().end()) {
        return fail(ErrorKind::invalid_input, fmt::format("{}: unknown fact \"{}\"", where, f));
      }
    }
    for (const auto& p : entry.patterns) {
      try {
        entry.compiled.emplace_back(p, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
      } catch (const std::regex_error& ex) {
        return fail(ErrorKind::invalid_input, fmt::format("{}: the pattern {} is not a valid regular expression: {}", where, p, ex.what()));
      }
      entry.anchors.push_back(required_literal(p));
      // {captured} is filled from the first group: every pattern must have one.
      if (uses(entry, "{captured}") && entry.compiled.back().mark_count() < 1) {
        return fail(ErrorKind::invalid_input, fmt::format("{}: uses {{captured}} but the pattern {} has no group", where, p));
      }
    }
    kb.entries.push_back(std::move(entry));
  }
  if (kb.entries.empty()) return fail(ErrorKind::invalid_input, "The knowledge base has no entries");
  // A loader status explains one failure only.
  std::set<std::uint32_t> statuses;
  for (const auto& entry : kb.entries) {
    for (auto status : entry.exit_statuses) {
      if (!statuses.insert(status).second) {
        return fail(ErrorKind::invalid_input, fmt::format("entry {}: the exit status 0x{:08X} is tied to another entry too", entry.id, status));
      }
    }
  }
  // Each sample must be recognised by its own entry, or the entry could never be explained.
  for (const auto& entry : kb.entries) {
    for (const auto& sample : entry.samples) {
      const auto found = match_text(kb, sample);
      if (std::none_of(found.begin(), found.end(), [&](const Match& m) { return m.entry->id == entry.id; })) {
        return fail(ErrorKind::invalid_input, fmt::format("entry {}: its own patterns do not match its sample: {}", entry.id, sample));
      }
    }
  }
  return kb;
}

Result<const KnowledgeBase*> builtin_knowledge_base() {
  static const Result<KnowledgeBase> kb = [] {
    const auto text = knowledge::find("known-failures.json");
    if (!text) return Result<KnowledgeBase>(fail(ErrorKind::internal, "known-failures.json is not compiled into zcuda"));
    auto parsed = parse_knowledge_base(*text);
    if (!parsed) return Result<KnowledgeBase>(fail(ErrorKind::internal, "The built-in knowledge base is broken: " + parsed.error().message));
    return parsed;
  }();
  if (!kb) return std::unexpected(kb.error());
  return &*kb;
}

}  // namespace zcuda::explain
