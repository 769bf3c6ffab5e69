#pragma once
// SHA-256 of each extracted file on a second thread, so hashing overlaps decompression and
// writing instead of adding to them. Blocks are copied into a small pool of buffers the main
// thread fills and the hashing thread drains, in order.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <zcuda/fetch/sha256.hpp>

namespace zcuda::archive::detail {

class ParallelHasher {
 public:
  explicit ParallelHasher(std::size_t buffers = 8, std::size_t buffer_size = 1u << 20);
  ~ParallelHasher();
  ParallelHasher(const ParallelHasher&) = delete;
  ParallelHasher& operator=(const ParallelHasher&) = delete;

  // A free buffer to fill; waits while all are queued for hashing.
  std::span<char> acquire();
  // Queues the first `used` bytes of a buffer from acquire() (0 just returns it).
  void submit(std::span<char> buffer, std::size_t used);
  // Everything submitted since the previous end_file() is one file; its digest goes to `slot`.
  void end_file(std::size_t slot);
  // Waits for the queue to drain; digests indexed by slot ("" for slots never ended).
  std::vector<std::string> finish();

 private:
  struct Item {
    std::size_t buffer = 0;
    std::size_t used = 0;
    bool end = false;
    std::size_t slot = 0;
  };
  void work();

  std::vector<std::vector<char>> buffers_;
  std::vector<std::size_t> free_;
  std::deque<Item> queue_;
  std::vector<std::string> digests_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  fetch::Sha256 digest_;  // used only by the hashing thread
  std::thread worker_;
};

}  // namespace zcuda::archive::detail
