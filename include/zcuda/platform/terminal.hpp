#pragma once
#include <cstdio>

namespace zcuda::platform {

// Makes stdout and stderr write bytes as given (call first in main). Windows' C runtime would turn each "\n" into
// "\r\n" in what zcuda prints; consoles show a plain "\n" as a new line, and pipes and files get
// the same text as on Linux (JSON, reports). A Windows console is switched to UTF-8 output until
// zcuda exits. Elsewhere it does nothing.
void prepare_stdio();

// True when the stream is an interactive terminal (not a pipe or file). On Windows this also
// switches the console to ANSI escape processing.
bool is_terminal(std::FILE* stream);

// Width of the terminal in columns, or 80 when unknown.
int terminal_width(std::FILE* stream);

}  // namespace zcuda::platform
