#pragma once
#include <filesystem>

#include <zcuda/base/error.hpp>

namespace zcuda::platform {

// Per-user folders by OS convention: %LOCALAPPDATA% on Windows; on Linux the XDG base
// directories with their documented fallbacks under $HOME.
struct UserFolders {
  std::filesystem::path data;   // Windows: %LOCALAPPDATA%   Linux: $XDG_DATA_HOME or ~/.local/share
  std::filesystem::path cache;  // Windows: %LOCALAPPDATA%   Linux: $XDG_CACHE_HOME or ~/.cache
  std::filesystem::path state;  // Windows: %LOCALAPPDATA%   Linux: $XDG_STATE_HOME or ~/.local/state
};

Result<UserFolders> user_folders();

}  // namespace zcuda::platform
