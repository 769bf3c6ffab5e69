#pragma once
// zcuda's own messages beside a command's output, in one format: errors with their notes and
// hint, warnings, hints, and plain notices. On stderr each line starts with "zcuda: " (under
// `zcuda run` the program writes there too) and its label is coloured by stderr's own style.
#include <cstdio>
#include <string>
#include <string_view>

#include <zcuda/base/error.hpp>
#include <zcuda/ui/style.hpp>

namespace zcuda::ui {

enum class NoticeKind { notice, note, hint, warning, error };

// "label: text" ("text" alone for a plain notice), the label styled; no prefix, no line end.
std::string notice_text(const Style& style, NoticeKind kind, std::string_view text);
// The error's line, then a line per note, then its hint; `prefix` starts every line.
std::string error_text(const Style& style, const Error& error, std::string_view prefix = {});

// The printer of zcuda's messages on stderr.
class Notices {
 public:
  Notices() = default;
  explicit Notices(Style style, std::FILE* stream = stderr) : style_(style), stream_(stream) {}
  // Colour as --color asks, when stderr is a terminal.
  static Notices for_stderr(ColorMode mode) { return Notices(Style::for_stream(stderr, mode), stderr); }

  void print(NoticeKind kind, std::string_view text) const;
  void print(const Error& error) const;
  const Style& style() const { return style_; }

 private:
  Style style_ = Style::plain();
  std::FILE* stream_ = stderr;
};

}  // namespace zcuda::ui
