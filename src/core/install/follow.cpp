#include "follow.hpp"

#include <chrono>
#include <thread>

namespace zcuda::install::detail {

namespace fs = std::filesystem;

FollowedFile::FollowedFile(fs::path partial, fs::path verified, const DownloadState& state, const std::atomic<bool>* cancel)
    : partial_(std::move(partial)), verified_(std::move(verified)), state_(state), cancel_(cancel), discards_at_start_(state.discards.load()) {}

bool FollowedFile::restarted() const { return state_.discards.load() != discards_at_start_; }

Result<std::size_t> FollowedFile::read(void* buffer, std::size_t size) {
  for (;;) {
    if (cancel_ != nullptr && cancel_->load()) return fail(ErrorKind::interrupted, "Interrupted");
    // Read `done` before reading bytes: when it was already set, a read that finds nothing is
    // the true end, since the fetch wrote its last byte before setting it.
    const bool finished = state_.done.load();
    if (finished && !state_.ok.load()) return fail(ErrorKind::incomplete, "The download stopped before the archive ended");
    if (!in_.is_open()) {
      in_.open(finished ? verified_ : partial_, std::ios::binary);
      if (!in_.is_open()) {
        in_.clear();
        if (finished) return fail(ErrorKind::io, "The downloaded archive could not be opened");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the first bytes have not arrived
        continue;
      }
    }
    in_.read(static_cast<char*>(buffer), static_cast<std::streamsize>(size));
    const auto n = static_cast<std::size_t>(in_.gcount());
    // Checked after the read: bytes read after a discard began are never handed on.
    if (restarted()) return fail(ErrorKind::incomplete, "The download started over; the archive is read again once it is complete");
    if (in_.bad()) return fail(ErrorKind::io, "The partial download could not be read");
    in_.clear();  // at the current end: the next read sees what arrives meanwhile
    if (n > 0) return n;
    if (finished) return std::size_t{0};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace zcuda::install::detail
