#include <zcuda/ui/style.hpp>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/terminal.hpp>

namespace zcuda::ui {

Style Style::for_stream(std::FILE* stream, ColorMode mode) {
  if (mode == ColorMode::never) return Style(false);
  if (auto no_color = platform::get_env("NO_COLOR"); no_color && !no_color->empty()) return Style(false);
  if (mode == ColorMode::always) return Style(true);
  return Style(platform::is_terminal(stream));
}

std::string Style::wrap(std::string_view code, std::string_view text) const {
  if (!colored_) return std::string(text);
  std::string out = "\x1b[";
  out += code;
  out += 'm';
  out += text;
  out += "\x1b[0m";
  return out;
}

}  // namespace zcuda::ui
