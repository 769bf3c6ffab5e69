#pragma once
// Downloads that are verified while they stream, resume after interruption, retry transient
// failures, try mirrors in order, and land in a cache addressed by SHA-256.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::fetch {

struct Request {
  std::vector<std::string> urls;      // the primary URL first, then mirrors; http(s):// or file://
  std::string sha256;                 // lowercase hex; required: nothing unverified is kept
  std::optional<std::uint64_t> size;  // bytes, when pinned
  std::string file_name;              // name looked up in an offline folder (--from)
  // Without a pinned size: the most bytes the file may have. A server that announces more is
  // refused before a byte is written, and one that sends more is stopped there; either way the
  // partial download is deleted (ErrorKind::integrity).
  std::optional<std::uint64_t> max_size;
};

struct Progress {
  std::uint64_t received = 0;  // bytes so far, including a resumed partial
  std::optional<std::uint64_t> total;
  double bytes_per_second = 0;
  std::string url;
};

struct Options {
  std::optional<std::filesystem::path> ca_bundle;    // --cacert; else CURL_CA_BUNDLE; else the system store
  std::optional<std::filesystem::path> offline_dir;  // --from DIR: files found by name or by digest
  int max_attempts_per_source = 5;
  std::chrono::seconds connect_timeout{30};
  std::chrono::seconds stall_timeout{60};  // no byte for this long is a transient failure
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{30000};
  std::chrono::seconds max_retry_after{120};  // a server's Retry-After is honoured up to this
  long max_redirects = 10;
  std::function<void(const Progress&)> on_progress;  // called from the transfer loop; may be empty
  const std::atomic<bool>* cancel = nullptr;         // set to true to stop (Ctrl-C); the partial stays
  // Called just before bytes already in the partial download are thrown away or overwritten (a
  // restart from zero, a source whose bytes failed verification): whoever reads the partial while
  // it grows must start over. Called on the fetching thread; may be empty.
  std::function<void()> on_discard;
};

struct Fetched {
  std::filesystem::path file;  // the verified file in the cache
  bool from_cache = false;     // already there and re-verified; nothing transferred
  std::string source;          // the URL or offline file that supplied it
  std::uint64_t bytes_transferred = 0;
  std::uint64_t resumed_from = 0;  // bytes of an earlier partial download that were kept
  std::uint64_t size = 0;          // size of the verified file
};

// The digest-addressed download cache under home: "<sha256>" for verified files,
// "<sha256>.partial" while downloading.
class Cache {
 public:
  explicit Cache(std::filesystem::path folder) : folder_(std::move(folder)) {}
  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path verified_path(const std::string& sha256) const { return folder_ / sha256; }
  std::filesystem::path partial_path(const std::string& sha256) const { return folder_ / (sha256 + ".partial"); }
  // What the server said about the partial (URL, ETag, Last-Modified), kept for If-Range.
  std::filesystem::path partial_meta_path(const std::string& sha256) const { return folder_ / (sha256 + ".partial.json"); }

 private:
  std::filesystem::path folder_;
};

// Returns a cached file whose digest and size match `request`, fetching it when needed.
// With `options.offline_dir` set, only that folder is used (no network): the file named
// `request.file_name`, else the file named after the digest.
// Errors: ErrorKind::integrity (digest or size differ), ErrorKind::incomplete (the transfer ended
// early), ErrorKind::network (every source failed), ErrorKind::io (disk), ErrorKind::interrupted.
Result<Fetched> fetch(const Request& request, const Cache& cache, const Options& options);

}  // namespace zcuda::fetch
