#include <zcuda/ui/notice.hpp>

namespace zcuda::ui {

namespace {

constexpr std::string_view kPrefix = "zcuda: ";

}  // namespace

std::string notice_text(const Style& style, NoticeKind kind, std::string_view text) {
  std::string label;
  switch (kind) {
    case NoticeKind::notice:
      return std::string(text);
    case NoticeKind::note:
      label = style.dim("note:");
      break;
    case NoticeKind::hint:
      label = style.cyan("hint:");
      break;
    case NoticeKind::warning:
      label = style.yellow("warning:");
      break;
    case NoticeKind::error:
      label = style.red(style.bold("error:"));
      break;
  }
  return label + " " + std::string(text);
}

std::string error_text(const Style& style, const Error& error, std::string_view prefix) {
  std::string out = std::string(prefix) + notice_text(style, NoticeKind::error, error.message) + "\n";
  for (const auto& note : error.notes) out += std::string(prefix) + notice_text(style, NoticeKind::note, note) + "\n";
  if (!error.hint.empty()) out += std::string(prefix) + notice_text(style, NoticeKind::hint, error.hint) + "\n";
  return out;
}

void Notices::print(NoticeKind kind, std::string_view text) const {
  const std::string line = std::string(kPrefix) + notice_text(style_, kind, text) + "\n";
  std::fputs(line.c_str(), stream_);
  std::fflush(stream_);
}

void Notices::print(const Error& error) const {
  std::fputs(error_text(style_, error, kPrefix).c_str(), stream_);
  std::fflush(stream_);
}

}  // namespace zcuda::ui
