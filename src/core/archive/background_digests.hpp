#pragma once
// SHA-256 of extracted files on a thread of its own. Inflating and writing a file is the slow
// path of an extraction; hashing it there too made zcuda's extraction slower than bsdtar's by
// the hashing time. Blocks are copied (libarchive reuses its buffer), and a bounded queue keeps
// the copies in flight to a few megabytes.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zcuda::archive::detail {

class BackgroundDigests {
 public:
  BackgroundDigests();
  ~BackgroundDigests();  // finishes what was queued, then joins
  BackgroundDigests(const BackgroundDigests&) = delete;
  BackgroundDigests& operator=(const BackgroundDigests&) = delete;

  // Starts the next file; its blocks follow until end(). Returns the file's number for digest().
  std::size_t begin();
  void add(const void* data, std::size_t size);
  void add_zeros(std::uint64_t count);  // a sparse file's hole reads back as zeros
  void end();
  // Waits until every ended file is hashed; digest(n) is then its lowercase hex.
  void drain();
  const std::string& digest(std::size_t file) const { return digests_[file]; }

 private:
  enum class Kind { data, zeros, end };
  struct Job {
    Kind kind;
    std::vector<char> bytes;
    std::uint64_t zeros = 0;
  };
  void push(Job job);
  void work();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  std::size_t queued_bytes_ = 0;
  std::size_t ended_ = 0;   // files whose end() was queued
  std::size_t hashed_ = 0;  // files the worker finished
  bool stopping_ = false;
  std::vector<std::string> digests_;  // by file number; written by the worker before hashed_ counts it
  std::thread worker_;
};

}  // namespace zcuda::archive::detail
