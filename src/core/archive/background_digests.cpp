#include "background_digests.hpp"

#include <algorithm>

#include <zcuda/base/sha256.hpp>

namespace zcuda::archive::detail {

namespace {
// Copies in flight at most: enough to ride out the worker's scheduling, small beside the files.
constexpr std::size_t kMaxQueuedBytes = 16u << 20;
}  // namespace

BackgroundDigests::BackgroundDigests() : worker_([this] { work(); }) {}

BackgroundDigests::~BackgroundDigests() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

std::size_t BackgroundDigests::begin() {
  std::lock_guard lock(mutex_);
  digests_.emplace_back();
  return digests_.size() - 1;
}

void BackgroundDigests::add(const void* data, std::size_t size) {
  if (size == 0) return;
  const auto* bytes = static_cast<const char*>(data);
  push({Kind::data, std::vector<char>(bytes, bytes + size), 0});
}

void BackgroundDigests::add_zeros(std::uint64_t count) {
  if (count > 0) push({Kind::zeros, {}, count});
}

void BackgroundDigests::end() {
  {
    std::lock_guard lock(mutex_);
    ++ended_;
  }
  push({Kind::end, {}, 0});
}

void BackgroundDigests::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return hashed_ == ended_; });
}

void BackgroundDigests::push(Job job) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_bytes_ < kMaxQueuedBytes; });
  queued_bytes_ += job.bytes.size();
  queue_.push_back(std::move(job));
  lock.unlock();
  changed_.notify_all();
}

void BackgroundDigests::work() {
  Sha256 hasher;
  std::vector<char> zeros;
  for (;;) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= job.bytes.size();
    const std::size_t file = hashed_;
    lock.unlock();
    changed_.notify_all();
    switch (job.kind) {
      case Kind::data:
        hasher.update(job.bytes.data(), job.bytes.size());
        break;
      case Kind::zeros:
        if (zeros.empty()) zeros.assign(1u << 16, '\0');
        for (std::uint64_t left = job.zeros; left > 0;) {
          const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
          hasher.update(zeros.data(), n);
          left -= n;
        }
        break;
      case Kind::end: {
        std::string hex = hasher.hex_digest();
        hasher.reset();
        lock.lock();
        digests_[file] = std::move(hex);
        ++hashed_;
        lock.unlock();
        changed_.notify_all();
        break;
      }
    }
  }
}

}  // namespace zcuda::archive::detail
