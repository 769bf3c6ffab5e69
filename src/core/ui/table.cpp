#include <zcuda/ui/table.hpp>

#include <algorithm>

namespace zcuda::ui {

std::size_t visible_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {  // skip "ESC [ ... m"
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++width;  // count UTF-8 lead bytes only
  }
  return width;
}

std::string Table::render(const std::string& indent) const {
  std::vector<std::size_t> widths(headers_.size(), 0);
  for (std::size_t c = 0; c < headers_.size(); ++c) widths[c] = visible_width(headers_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], visible_width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : std::string();
      out += cell;
      if (c + 1 < widths.size()) out += std::string(widths[c] - visible_width(cell) + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + '\n';
  };
  // A table whose headers are all empty is a plain two-column list: no header line.
  bool headless = std::all_of(headers_.begin(), headers_.end(), [](const std::string& h) { return h.empty(); });
  std::string out = headless ? std::string() : line(headers_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace zcuda::ui
