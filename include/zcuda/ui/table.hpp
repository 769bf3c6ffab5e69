#pragma once
#include <string>
#include <vector>

namespace zcuda::ui {

// A plain text table with left-aligned columns. Cells may hold colour escapes: widths are
// measured on the visible characters.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Number of terminal columns a UTF-8 string takes, ignoring ANSI escapes.
std::size_t visible_width(const std::string& text);

}  // namespace zcuda::ui
