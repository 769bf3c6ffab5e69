#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zcuda::platform {

enum class Os { linux, windows };

Os current_os();
std::string_view os_id(Os os);  // "linux" | "windows", as manifests spell it
std::optional<Os> os_from_id(std::string_view id);

// Environment access. Values are UTF-8 on every platform.
std::optional<std::string> get_env(std::string_view name);

// The program's arguments as UTF-8, argv[0] first. POSIX: argv as given. Windows: parsed from the
// wide command line, so they are UTF-8 whatever the ANSI code page.
std::vector<std::string> command_line_arguments(int argc, char** argv);

// Separator of PATH-like lists on this platform (':' or ';').
char path_list_separator();

}  // namespace zcuda::platform
