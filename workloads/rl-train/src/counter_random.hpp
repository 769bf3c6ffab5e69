// Random numbers that do not depend on any device's generator, thread count or LibTorch version:
// value number `counter` of a stream is a pure function of (seed, stream, counter) (a SplitMix64
// hash), computed on the host in double precision and moved to the device in blocks. So the CPU
// and a GPU, here or on another machine, see the same numbers, and a run can be compared
// against another step by step.
#pragma once

#include "torch_api.hpp"

#include <cstdint>

namespace rl::random {

// Each use of randomness has its own stream, so adding draws to one never shifts another.
enum class Stream : std::uint64_t {
  parameters = 1,        // initial weights
  observation_features,  // the environment's fixed feature projection
  arena_start,           // each arena's first state
  arena_events,          // new targets, positions and rotations while running
  action_noise,          // the Gaussian policy's samples
  minibatch_order,       // the PPO epoch's shuffle
  verify_batch,          // the fixed batch of --verify's forward check
};

std::uint64_t mix64(std::uint64_t value);

// Uniform in the open interval (0, 1).
double uniform(std::uint64_t seed, Stream stream, std::uint64_t counter);

// Standard normal (Box-Muller over counters 2*counter and 2*counter+1).
double normal(std::uint64_t seed, Stream stream, std::uint64_t counter);

// A CPU double tensor of `shape` holding values first_counter, first_counter+1, ... in row-major
// order.
torch::Tensor uniform_block(std::uint64_t seed, Stream stream, std::uint64_t first_counter, at::IntArrayRef shape);
torch::Tensor normal_block(std::uint64_t seed, Stream stream, std::uint64_t first_counter, at::IntArrayRef shape);

// A permutation of 0..size-1 (CPU int64), the `key`-th of the stream (Fisher-Yates).
torch::Tensor permutation(std::uint64_t seed, Stream stream, std::uint64_t key, std::int64_t size);

}  // namespace rl::random
