#pragma once
// Ctrl-C as a flag: long operations poll it and stop cleanly instead of dying mid-write.
#include <atomic>

namespace zcuda::platform {

// Installs the handler on first use (SIGINT and SIGTERM on POSIX; console Ctrl-C, Ctrl-Break and
// close on Windows) and returns the flag it sets. A second Ctrl-C ends the process at once.
const std::atomic<bool>& interrupt_flag();

}  // namespace zcuda::platform
