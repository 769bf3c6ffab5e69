#pragma once
// The caches that matter to programs run through ZLUDA: ZLUDA's compiled kernels, MIOpen's
// kernels and databases, Triton's and TorchInductor's compiled code. Where each lives, how much
// it holds, and clearing it without ever touching anything else (docs/caches.md).
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/known_folders.hpp>

namespace zcuda::caches {

inline constexpr std::array<std::string_view, 4> kNames = {"zluda", "miopen", "triton", "torchinductor"};

// `detect` reports a cache larger than this (large-cache).
inline constexpr std::uint64_t kLargeCacheBytes = 5ull << 30;

// What locating the caches reads: the folders and the environment (the live ones, or a test's).
struct Inputs {
  platform::CacheRoots roots;
  std::function<std::optional<std::string>(std::string_view)> env;
};
Inputs live_inputs();

struct Folder {
  std::string name;  // one of kNames
  std::filesystem::path path;
  std::string origin;  // "default", or the variable that named it
};

// Every place each cache may be, deduplicated, in kNames order.
std::vector<Folder> locate(const Inputs& inputs);

struct Usage {
  Folder folder;
  bool exists = false;
  bool is_link = false;     // the folder itself is a symbolic link (never followed)
  std::uint64_t bytes = 0;  // regular files only; links inside are not followed
  std::uint64_t files = 0;
  std::optional<std::int64_t> newest;  // modification times, seconds since 1970 (UTC)
  std::optional<std::int64_t> oldest;
};

// Walks the folder without following links. Unreadable parts are skipped.
Usage measure(const Folder& folder);

nlohmann::json to_json(const Usage& usage);

// Whether the folder holds any file, and whether one was written at or after `since` (seconds
// since 1970; nothing: any file counts). The walk stops at the first such file, so a launch can
// ask it of a kernel cache with thousands of files (measure() would stat them all).
struct Written {
  bool any = false;
  bool since = false;
};
Written written_since(const Folder& folder, std::optional<std::int64_t> since);

// Why clearing this folder is refused, or nullopt when it may be removed: not a real folder (a
// link is never followed), a relative path, a drive or file-system root, or the profile, temp or
// cache folder itself or one above them (a variable pointed somewhere it must not).
std::optional<std::string> refuse_reason(const Usage& usage, const platform::CacheRoots& roots);

struct Removal {
  Usage usage;
  std::optional<std::string> refused;  // why it was left alone
  bool removed = false;
};

// Clears the named caches (usage error for an unknown name). With `apply` false nothing is
// touched and the result says what would be removed. Links inside are removed as links, never
// followed.
Result<std::vector<Removal>> clear(const std::vector<std::string>& names, const Inputs& inputs, bool apply);

}  // namespace zcuda::caches
