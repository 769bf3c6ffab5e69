// Matching text (a message, a log, the tail of a program's stderr) against the knowledge base,
// line by line. std::regex recurses per character and is slow, so it never sees a whole log: each
// line (or window of a long line) is first checked for the literal text a pattern requires.
#include <zcuda/explain/explain.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/platform/process.hpp>

namespace zcuda::explain {

namespace {

// A message is far shorter than kOverlap, so it lies whole inside one window of a long line.
constexpr std::size_t kWindow = 4096;
constexpr std::size_t kOverlap = 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf16_to_utf8(std::string_view bytes, bool little_endian) {
  std::string out;
  out.reserve(bytes.size() / 2);
  auto unit = [&](std::size_t i) -> char16_t {
    const auto a = static_cast<unsigned char>(bytes[i]);
    const auto b = static_cast<unsigned char>(bytes[i + 1]);
    return static_cast<char16_t>(little_endian ? (a | (b << 8)) : ((a << 8) | b));
  };
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) {
    const char16_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 3 < bytes.size()) {
      const char16_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
    }
    append_utf8(out, (u >= 0xD800 && u <= 0xDFFF) ? char32_t{0xFFFD} : char32_t{u});
  }
  return out;
}

// PowerShell 5.1's `>` writes UTF-16LE with a BOM; a log cut from one may have lost it. ASCII
// text in UTF-16 has a zero in every other byte.
std::optional<bool> utf16_without_bom(std::string_view text) {
  const std::size_t n = std::min<std::size_t>(text.size(), 4096) & ~std::size_t{1};
  if (n < 8) return std::nullopt;
  std::size_t even_zero = 0;
  std::size_t odd_zero = 0;
  for (std::size_t i = 0; i < n; i += 2) {
    even_zero += text[i] == '\0';
    odd_zero += text[i + 1] == '\0';
  }
  const std::size_t pairs = n / 2;
  if (odd_zero * 10 >= pairs * 4 && even_zero * 20 < pairs) return true;
  if (even_zero * 10 >= pairs * 4 && odd_zero * 20 < pairs) return false;
  return std::nullopt;
}

// ESC [ params intermediates final (CSI: colours, cursor moves); ESC ] ... BEL or ESC \ (OSC:
// titles, links); otherwise ESC and the one character after it.
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) break;
    const char kind = s[i + 1];
    std::size_t j = i + 2;
    if (kind == '[') {
      while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x3F) ++j;  // parameters, intermediates
      if (j < s.size() && s[j] >= 0x40 && s[j] <= 0x7E) ++j;     // final byte
    } else if (kind == ']') {
      while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
      j += (j < s.size() && s[j] == '\x1b') ? std::size_t{2} : std::size_t{1};
    }
    i = std::min(j, s.size()) - 1;
  }
  return out;
}

// The gfx target a message names: "gfx" and 3-4 digits, or 2 digits and a letter (gfx90c,
// gfx90a), not part of a longer word (gfx110X is a family, not a target). Lowercase, as ROCm
// prints them.
const std::regex& gfx_regex() {
  static const std::regex gfx(R"(gfx(?:[0-9]{4}|[0-9]{3}|[0-9]{2}[0-9a-f])(?![0-9A-Za-z]))", std::regex::ECMAScript | std::regex::optimize);
  return gfx;
}

std::optional<std::string> gfx_of(const std::smatch& m, const std::string& line) {
  for (std::size_t g = 1; g < m.size(); ++g) {
    const std::string group = lower_ascii(m[g].str());
    if (m[g].matched && std::regex_match(group, gfx_regex())) return group;
  }
  // Not captured: the last target the line names (paths before it may name a family folder).
  std::optional<std::string> last;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), gfx_regex()); it != std::sregex_iterator(); ++it) last = it->str();
  return last;
}

Match* matched_already(std::vector<Match>& found, const Entry& entry) {
  auto it = std::find_if(found.begin(), found.end(), [&](const Match& m) { return m.entry == &entry; });
  return it == found.end() ? nullptr : &*it;
}

void match_piece(const KnowledgeBase& kb, std::string_view piece, std::size_t line_number, std::vector<Match>& found) {
  piece = trim(piece);
  if (piece.empty()) return;
  const std::string lower = lower_ascii(piece);
  std::optional<std::string> line;  // made only when some anchor is present
  for (const auto& entry : kb.entries) {
    Match* earlier = matched_already(found, entry);
    if (earlier != nullptr && earlier->last_line_number == line_number) continue;
    for (std::size_t p = 0; p < entry.compiled.size(); ++p) {
      const std::string& anchor = entry.anchors[p];
      if (!anchor.empty() && lower.find(anchor) == std::string::npos) continue;
      if (!line) line.emplace(piece);
      std::smatch m;
      if (!std::regex_search(*line, m, entry.compiled[p])) continue;
      if (earlier != nullptr) {  // reported at its first line; only where it last appeared changes
        earlier->last_line_number = line_number;
        break;
      }
      Match match;
      match.entry = &entry;
      match.line = *line;
      match.line_number = line_number;
      match.last_line_number = line_number;
      if (m.size() > 1 && m[1].matched) match.captured = m[1].str();
      match.gfx = gfx_of(m, *line);
      found.push_back(std::move(match));
      break;
    }
  }
}

}  // namespace

std::string normalise_log(std::string_view text) {
  std::string decoded;
  if (text.starts_with("\xFF\xFE")) {
    decoded = utf16_to_utf8(text.substr(2), true);
  } else if (text.starts_with("\xFE\xFF")) {
    decoded = utf16_to_utf8(text.substr(2), false);
  } else if (auto little = utf16_without_bom(text)) {
    decoded = utf16_to_utf8(text, *little);
  } else {
    decoded.assign(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text);
  }
  if (decoded.find('\x1b') == std::string::npos) return decoded;
  return strip_ansi(decoded);
}

std::string required_literal(std::string_view pattern) {
  std::string best;
  std::string run;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  int depth = 0;
  // A quantifier after a literal: that literal is optional (?, *, {) or repeats (+).
  auto quantified = [&](std::size_t next) -> bool {
    if (next >= pattern.size()) return false;
    const char q = pattern[next];
    return q == '?' || q == '*' || q == '+' || (q == '{' && next + 1 < pattern.size() && pattern[next + 1] >= '0' && pattern[next + 1] <= '9');
  };
  auto skip_quantifier = [&](std::size_t i) -> std::size_t {  // i at the quantifier; returns the index after it
    if (pattern[i] == '{') {
      while (i < pattern.size() && pattern[i] != '}') ++i;
    }
    ++i;
    if (i < pattern.size() && pattern[i] == '?') ++i;  // lazy
    return i;
  };
  for (std::size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '[') {  // a class: skip to its end
      std::size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? std::size_t{2} : std::size_t{1};
      i = j + 1;
      end_run();
      if (depth == 0 && quantified(i)) i = skip_quantifier(i);
      continue;
    }
    if (c == '(') {
      ++depth;
      end_run();
      ++i;
      continue;
    }
    if (c == ')') {
      --depth;
      ++i;
      if (depth == 0 && quantified(i)) i = skip_quantifier(i);
      continue;
    }
    if (c == '|') {
      if (depth == 0) return "";  // alternatives at the top: no literal is certain
      ++i;
      continue;
    }
    char literal = 0;
    std::size_t next = i + 1;
    if (c == '\\') {
      if (i + 1 >= pattern.size()) break;
      const char e = pattern[i + 1];
      next = i + 2;
      if (std::string_view("dDwWsSbBnrtfv0123456789cxuk").find(e) == std::string_view::npos) literal = e;
    } else if (std::string_view(".^$*+?{").find(c) == std::string_view::npos) {
      literal = c;
    }
    if (depth > 0) {
      i = next;
      continue;
    }
    if (literal == 0) {
      end_run();
      i = next;
      if (quantified(i)) i = skip_quantifier(i);
      continue;
    }
    if (quantified(next)) {
      if (pattern[next] == '+') run += static_cast<char>(std::tolower(static_cast<unsigned char>(literal)));
      end_run();
      i = skip_quantifier(next);
      continue;
    }
    run += static_cast<char>(std::tolower(static_cast<unsigned char>(literal)));
    i = next;
  }
  end_run();
  return best;
}

std::vector<Match> match_text(const KnowledgeBase& kb, std::string_view raw) {
  const std::string text = normalise_log(raw);
  std::vector<Match> found;
  std::vector<std::size_t> awaiting_next_line;  // matches whose reason is on the following line
  std::size_t line_number = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    ++line_number;
    const auto end = rest.find_first_of("\r\n");
    const std::string_view line = rest.substr(0, end);
    if (end == std::string_view::npos) {
      rest = {};
    } else {
      const bool crlf = rest[end] == '\r' && end + 1 < rest.size() && rest[end + 1] == '\n';
      rest.remove_prefix(end + (crlf ? 2 : 1));
    }
    if (!awaiting_next_line.empty() && !trim(line).empty()) {
      for (auto index : awaiting_next_line) found[index].line += fmt::format(" / {}", trim(line.substr(0, kOverlap)));
      awaiting_next_line.clear();
    }
    const std::size_t before = found.size();
    if (line.size() <= kWindow) {
      match_piece(kb, line, line_number, found);
    } else {
      for (std::size_t at = 0; at < line.size(); at += kWindow - kOverlap) {
        match_piece(kb, line.substr(at, kWindow), line_number, found);
        if (at + kWindow >= line.size()) break;
      }
    }
    for (std::size_t index = before; index < found.size(); ++index) {
      if (found[index].entry->next_line) awaiting_next_line.push_back(index);
    }
  }
  return found;
}

std::optional<Match> match_exit_status(const KnowledgeBase& kb, std::uint32_t status) {
  for (const auto& entry : kb.entries) {
    if (std::find(entry.exit_statuses.begin(), entry.exit_statuses.end(), status) == entry.exit_statuses.end()) continue;
    Match match;
    match.entry = &entry;
    match.line = fmt::format("the program ended with status 0x{:08X}: {} (Windows shows this in a dialog, not in the output)", status,
                             platform::exit_status_meaning(status));
    return match;
  }
  return std::nullopt;
}

std::optional<Match> pick_failure(const std::vector<Match>& matches, std::optional<Match> from_status) {
  const Match* last_fatal = nullptr;
  for (const auto& m : matches) {
    if (m.entry->severity == Severity::fatal && (last_fatal == nullptr || m.last_line_number >= last_fatal->last_line_number)) last_fatal = &m;
  }
  if (last_fatal != nullptr) return *last_fatal;
  if (from_status) return from_status;
  if (!matches.empty()) return matches.front();
  return std::nullopt;
}

}  // namespace zcuda::explain
