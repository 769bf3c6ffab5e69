#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace zcuda::platform {

enum class Os { linux, windows };

Os current_os();
std::string_view os_id(Os os);  // "linux" | "windows", as manifests spell it

// Environment access. Values are UTF-8 on every platform.
std::optional<std::string> get_env(std::string_view name);

// Separator of PATH-like lists on this platform (':' or ';').
char path_list_separator();

}  // namespace zcuda::platform
