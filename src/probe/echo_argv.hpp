#pragma once
// zcuda-probe as an argument echo: with ZCUDA_PROBE_ECHO_ARGV=1 in its environment it prints
// {"echo_argv":[...]} (its arguments after argv[0], UTF-8) and exits 0, whatever the arguments.
// zcuda learns from it how ZLUDA's zluda.exe passes arguments on (src/core/launch/launcher.cpp).
// A variable rather than a flag: a flag would itself pass through the joining being learned.

#include <string>
#include <vector>

namespace zcuda::probe {

bool echo_argv_requested();

// Prints the line; Windows reads the command line itself (CommandLineToArgvW on the UTF-16
// line), so the arguments do not depend on the code page.
int echo_argv(int argc, char** argv);

namespace os {
// The arguments after the program's own name, as UTF-8 (echo_argv_posix.cpp / _win32.cpp).
std::vector<std::string> arguments(int argc, char** argv);
}  // namespace os

}  // namespace zcuda::probe
