#include "counter_random.hpp"

#include <ATen/Parallel.h>

#include <cmath>
#include <utility>

namespace rl::random {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

std::uint64_t stream_key(std::uint64_t seed, Stream stream) {
  return mix64(seed ^ mix64(static_cast<std::uint64_t>(stream) * 0x9E3779B97F4A7C15ULL));
}

double to_unit(std::uint64_t bits) {
  // 53 random bits, centred in their interval: never exactly 0 or 1, so log() is safe.
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double uniform_from_key(std::uint64_t key, std::uint64_t counter) { return to_unit(mix64(key + counter * 0x9E3779B97F4A7C15ULL)); }

double normal_from_key(std::uint64_t key, std::uint64_t counter) {
  const double radius = std::sqrt(-2.0 * std::log(uniform_from_key(key, 2 * counter)));
  return radius * std::cos(kTwoPi * uniform_from_key(key, 2 * counter + 1));
}

template <typename Draw>
torch::Tensor fill_block(at::IntArrayRef shape, Draw draw) {
  torch::Tensor block = torch::empty(shape, torch::TensorOptions().dtype(torch::kDouble));
  double* values = block.data_ptr<double>();
  at::parallel_for(0, block.numel(), 4096, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) values[i] = draw(static_cast<std::uint64_t>(i));
  });
  return block;
}

}  // namespace

std::uint64_t mix64(std::uint64_t value) {
  // SplitMix64's finaliser (Steele, Lea, Flood 2014).
  value ^= value >> 30;
  value *= 0xBF58476D1CE4E5B9ULL;
  value ^= value >> 27;
  value *= 0x94D049BB133111EBULL;
  value ^= value >> 31;
  return value;
}

double uniform(std::uint64_t seed, Stream stream, std::uint64_t counter) { return uniform_from_key(stream_key(seed, stream), counter); }

double normal(std::uint64_t seed, Stream stream, std::uint64_t counter) { return normal_from_key(stream_key(seed, stream), counter); }

torch::Tensor uniform_block(std::uint64_t seed, Stream stream, std::uint64_t first_counter, at::IntArrayRef shape) {
  const std::uint64_t key = stream_key(seed, stream);
  return fill_block(shape, [&](std::uint64_t i) { return uniform_from_key(key, first_counter + i); });
}

torch::Tensor normal_block(std::uint64_t seed, Stream stream, std::uint64_t first_counter, at::IntArrayRef shape) {
  const std::uint64_t key = stream_key(seed, stream);
  return fill_block(shape, [&](std::uint64_t i) { return normal_from_key(key, first_counter + i); });
}

torch::Tensor permutation(std::uint64_t seed, Stream stream, std::uint64_t key, std::int64_t size) {
  const std::uint64_t stream_base = stream_key(seed, stream) ^ mix64(key + 1);
  torch::Tensor order = torch::arange(size, torch::TensorOptions().dtype(torch::kLong));
  std::int64_t* index = order.data_ptr<std::int64_t>();
  for (std::int64_t i = size - 1; i > 0; --i) {
    const auto draw = uniform_from_key(stream_base, static_cast<std::uint64_t>(i));
    const auto j = static_cast<std::int64_t>(draw * static_cast<double>(i + 1));
    std::swap(index[i], index[j < i ? j : i]);
  }
  return order;
}

}  // namespace rl::random
