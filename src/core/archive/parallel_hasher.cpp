#include "parallel_hasher.hpp"

namespace zcuda::archive::detail {

ParallelHasher::ParallelHasher(std::size_t buffers, std::size_t buffer_size) : buffers_(buffers, std::vector<char>(buffer_size)) {
  for (std::size_t i = 0; i < buffers; ++i) free_.push_back(i);
  worker_ = std::thread([this] { work(); });
}

ParallelHasher::~ParallelHasher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

std::span<char> ParallelHasher::acquire() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !free_.empty(); });
  const std::size_t index = free_.back();
  free_.pop_back();
  return buffers_[index];
}

void ParallelHasher::submit(std::span<char> buffer, std::size_t used) {
  std::size_t index = 0;
  while (buffers_[index].data() != buffer.data()) ++index;
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({index, used, false, 0});
  }
  changed_.notify_all();
}

void ParallelHasher::end_file(std::size_t slot) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({0, 0, true, slot});
  }
  changed_.notify_all();
}

std::vector<std::string> ParallelHasher::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty() && free_.size() == buffers_.size(); });
  return digests_;
}

void ParallelHasher::work() {
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping with nothing left
      item = queue_.front();
    }
    // Hash outside the lock; the item stays queued until done so finish() waits for it.
    if (item.end) {
      std::string hex = digest_.hex_digest();
      digest_.reset();
      std::lock_guard lock(mutex_);
      if (digests_.size() <= item.slot) digests_.resize(item.slot + 1);
      digests_[item.slot] = std::move(hex);
      queue_.pop_front();
    } else {
      if (item.used > 0) digest_.update(buffers_[item.buffer].data(), item.used);
      std::lock_guard lock(mutex_);
      free_.push_back(item.buffer);
      queue_.pop_front();
    }
    changed_.notify_all();
  }
}

}  // namespace zcuda::archive::detail
