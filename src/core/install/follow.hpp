#pragma once
// Reading a download's partial file while it grows, so that an install extracts during the
// download instead of after it.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <zcuda/archive/archive.hpp>

namespace zcuda::install::detail {

// What the fetching thread tells the reader.
struct DownloadState {
  std::atomic<std::uint64_t> discards{0};  // bumped by fetch::Options::on_discard
  std::atomic<bool> ok{false};             // set before done
  std::atomic<bool> done{false};           // the fetch returned: every byte it will write is written
};

// The partial file, front to back; waits at its end while the download goes on. Once the fetch
// is done the file has been renamed to `verified` (the open stream reads on), or the fetch
// failed and reading fails. When the fetch threw away bytes that were already read (a restart
// from zero), reading fails and restarted() says so: what was extracted is not the verified file.
class FollowedFile : public archive::Stream {
 public:
  FollowedFile(std::filesystem::path partial, std::filesystem::path verified, const DownloadState& state, const std::atomic<bool>* cancel);
  Result<std::size_t> read(void* buffer, std::size_t size) override;
  bool restarted() const;

 private:
  std::filesystem::path partial_;
  std::filesystem::path verified_;
  const DownloadState& state_;
  const std::atomic<bool>* cancel_;
  std::uint64_t discards_at_start_;
  std::ifstream in_;
};

}  // namespace zcuda::install::detail
