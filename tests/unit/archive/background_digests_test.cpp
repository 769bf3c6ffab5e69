// The extraction's hashing thread gives each file the digest a plain SHA-256 of its bytes gives,
// in order, across queue pressure and sparse holes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <zcuda/base/sha256.hpp>

#include "background_digests.hpp"

namespace zcuda::archive::detail {
namespace {

std::string plain(const std::string& bytes) {
  Sha256 hasher;
  hasher.update(bytes.data(), bytes.size());
  return hasher.hex_digest();
}

TEST(BackgroundDigests, EachFileGetsTheDigestOfItsOwnBytes) {
  BackgroundDigests digests;
  // Larger than the queue's bound, fed in blocks: the producer waits for the worker.
  std::string big(40u << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::vector<std::string> files = {"", "a", big, std::string(70000, 'x')};
  std::vector<std::size_t> numbers;
  for (const auto& f : files) {
    numbers.push_back(digests.begin());
    for (std::size_t at = 0; at < f.size(); at += 65536) digests.add(f.data() + at, std::min<std::size_t>(65536, f.size() - at));
    digests.end();
  }
  digests.drain();
  for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(digests.digest(numbers[i]), plain(files[i])) << "file " << i;
}

TEST(BackgroundDigests, HolesHashAsZerosBetweenData) {
  BackgroundDigests digests;
  const auto n = digests.begin();
  digests.add("head", 4);
  digests.add_zeros(200000);
  digests.add("tail", 4);
  digests.end();
  digests.drain();
  EXPECT_EQ(digests.digest(n), plain("head" + std::string(200000, '\0') + "tail"));
}

TEST(BackgroundDigests, DrainWaitsOnlyForEndedFilesAndLaterFilesFollow) {
  BackgroundDigests digests;
  const auto first = digests.begin();
  digests.add("one", 3);
  digests.end();
  digests.drain();
  EXPECT_EQ(digests.digest(first), plain("one"));
  const auto second = digests.begin();
  digests.add("two", 3);
  digests.end();
  digests.drain();
  EXPECT_EQ(digests.digest(second), plain("two"));
  EXPECT_EQ(digests.digest(first), plain("one"));
}

}  // namespace
}  // namespace zcuda::archive::detail
