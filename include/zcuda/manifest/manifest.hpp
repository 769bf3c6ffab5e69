#pragma once
// The pinned artifact set: what zcuda may download and install, with the digest each download
// must match. Format version 1 is documented in docs/manifest-format.md.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>

namespace zcuda::manifest {

inline constexpr int kFormatVersion = 1;

enum class ArchiveKind { zip, tar_gz, none };
enum class TargetOs { windows, linux, any };
// ZLUDA's release lines: "stable" (v6) and "latest" (v7 previews), as manifests and --channel spell them.
enum class Channel { stable, latest };

struct Artifact {
  std::string id;                  // unique in the manifest; what --only and --remove name
  std::string component;           // install folder name: "zluda", "libtorch"
  std::string version;             // folder name under the component: "v6-preview.69"
  std::optional<Channel> channel;  // absent: part of every channel
  TargetOs os = TargetOs::any;
  std::string url;
  std::vector<std::string> mirrors;   // tried in order after url
  std::string sha256;                 // 64 lowercase hex digits
  std::optional<std::uint64_t> size;  // bytes, when the publisher's size is known
  ArchiveKind archive = ArchiveKind::zip;
  std::optional<std::string> root;  // folder inside the archive whose contents are installed
  bool optional = false;            // installed only when asked for (--with-libtorch, --only)
  std::string license;
  std::string file_name;                    // the download's name; from the URL unless given
  std::vector<std::string> expected_files;  // relative paths that must exist once installed
  nlohmann::json entry;                     // the entry as written, kept in receipts
};

struct Manifest {
  std::vector<Artifact> artifacts;
  std::string origin;  // "embedded" or the file it came from
};

// Parses and validates a format-1 manifest. Errors (ErrorKind::invalid_input) name the JSON
// path of the problem, e.g. "artifacts[1].sha256: expected 64 hex digits, got 63".
Result<Manifest> parse(std::string_view json_text, std::string_view origin);
Result<Manifest> load_file(const std::filesystem::path& file);
Result<Manifest> load_embedded();  // manifests/artifacts.json, built into the binary

std::string_view to_string(ArchiveKind kind);
std::string_view to_string(TargetOs os);
std::string_view to_string(Channel channel);
std::optional<Channel> channel_from_word(std::string_view word);

// True when `path` is a safe relative path with '/' separators (no "..", no absolute or drive
// prefix, no backslash): the rule for "root" and "expected_files".
bool is_safe_relative_path(std::string_view path);

}  // namespace zcuda::manifest
