#pragma once
#include <cstdio>

namespace zcuda::platform {

// True when the stream is an interactive terminal (not a pipe or file). On Windows this also
// switches the console to UTF-8 output and ANSI escape processing.
bool is_terminal(std::FILE* stream);

// Width of the terminal in columns, or 80 when unknown.
int terminal_width(std::FILE* stream);

}  // namespace zcuda::platform
