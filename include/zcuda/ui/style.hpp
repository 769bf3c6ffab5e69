#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace zcuda::ui {

enum class ColorMode { automatic, always, never };

// Colour for human output: on only when the stream it is for is a terminal (stdout for a
// command's output, stderr for zcuda's messages: each follows its own), never with NO_COLOR set
// (no-color.org).
class Style {
 public:
  static Style for_stream(std::FILE* stream, ColorMode mode);
  static Style for_stdout(ColorMode mode) { return for_stream(stdout, mode); }
  static Style plain() { return Style(false); }

  bool colored() const { return colored_; }
  std::string bold(std::string_view text) const { return wrap("1", text); }
  std::string dim(std::string_view text) const { return wrap("2", text); }
  std::string red(std::string_view text) const { return wrap("31", text); }
  std::string green(std::string_view text) const { return wrap("32", text); }
  std::string yellow(std::string_view text) const { return wrap("33", text); }
  std::string cyan(std::string_view text) const { return wrap("36", text); }

 private:
  explicit Style(bool colored) : colored_(colored) {}
  std::string wrap(std::string_view code, std::string_view text) const;
  bool colored_ = false;
};

}  // namespace zcuda::ui
