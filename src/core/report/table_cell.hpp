#pragma once
// A Markdown table cell: the text with nothing in it that would break the row (markdown.cpp).
#include <string>

namespace zcuda::report {

std::string table_cell(std::string text);

}  // namespace zcuda::report
