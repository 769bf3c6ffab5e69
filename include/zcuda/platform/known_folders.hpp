#pragma once
#include <filesystem>
#include <optional>
#include <string>

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

// Folders other programs (ZLUDA, MIOpen, Triton, PyTorch) keep their caches under, found as they
// find them, so `zcuda cache` looks where they write.
struct CacheRoots {
  std::optional<std::filesystem::path> user_cache;  // Windows: %LOCALAPPDATA% (else the known folder);
                                                    // Linux: $XDG_CACHE_HOME or ~/.cache
  std::optional<std::filesystem::path> profile;     // Windows: %USERPROFILE%; Linux: $HOME
  std::filesystem::path temp;                       // Python's tempfile.gettempdir(): TMPDIR, TEMP, TMP, else the OS's
  std::string user;                                 // Python's getpass.getuser(): LOGNAME, USER, LNAME, USERNAME, else the account
};
CacheRoots cache_roots();

}  // namespace zcuda::platform
