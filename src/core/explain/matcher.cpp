// Matching text (a message, a log, the tail of a program's stderr) against the knowledge base,
// line by line: std::regex recurses per character, so whole multi-megabyte logs are not given
// to it at once.
#include <zcuda/explain/explain.hpp>

#include <algorithm>

namespace zcuda::explain {

namespace {

// Longer lines are cut: a message is at its start, and the regex engine's cost grows with length.
constexpr std::size_t kMaxLine = 4096;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::optional<std::string> gfx_in(const std::string& line) {
  static const std::regex gfx(R"(gfx[0-9]{3,4}[a-z]?)", std::regex::ECMAScript | std::regex::icase);
  std::smatch m;
  if (!std::regex_search(line, m, gfx)) return std::nullopt;
  std::string out = m.str();
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::vector<Match> match_text(const KnowledgeBase& kb, std::string_view text) {
  std::vector<Match> found;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const auto end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    raw = trim(raw.substr(0, kMaxLine));
    if (raw.empty()) continue;
    const std::string line(raw);
    for (const auto& entry : kb.entries) {
      if (std::any_of(found.begin(), found.end(), [&](const Match& m) { return m.entry == &entry; })) continue;
      for (const auto& re : entry.compiled) {
        std::smatch m;
        if (!std::regex_search(line, m, re)) continue;
        Match match;
        match.entry = &entry;
        match.line = line;
        match.line_number = line_number;
        if (m.size() > 1 && m[1].matched) match.captured = m[1].str();
        match.gfx = gfx_in(line);
        found.push_back(std::move(match));
        break;
      }
    }
  }
  return found;
}

}  // namespace zcuda::explain
