#include "counter_random.hpp"

#include <gtest/gtest.h>

namespace rl::random {
namespace {

TEST(CounterRandom, IsAPureFunctionOfSeedStreamAndCounter) {
  EXPECT_EQ(uniform(123, Stream::action_noise, 42), uniform(123, Stream::action_noise, 42));
  EXPECT_NE(uniform(123, Stream::action_noise, 42), uniform(124, Stream::action_noise, 42));
  EXPECT_NE(uniform(123, Stream::action_noise, 42), uniform(123, Stream::arena_events, 42));
  EXPECT_NE(uniform(123, Stream::action_noise, 42), uniform(123, Stream::action_noise, 43));
}

TEST(CounterRandom, BlocksAreSlicesOfOneSequence) {
  const torch::Tensor whole = uniform_block(7, Stream::arena_events, 0, {10, 3});
  const torch::Tensor tail = uniform_block(7, Stream::arena_events, 12, {6, 3});
  EXPECT_TRUE(torch::equal(whole.slice(0, 4, 10), tail.slice(0, 0, 6)));
  EXPECT_EQ(normal_block(7, Stream::action_noise, 5, {1}).item<double>(), normal(7, Stream::action_noise, 5));
}

TEST(CounterRandom, UniformAndNormalHaveTheirMoments) {
  const torch::Tensor u = uniform_block(123, Stream::arena_start, 0, {200000});
  EXPECT_GT(u.min().item<double>(), 0.0);
  EXPECT_LT(u.max().item<double>(), 1.0);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.005);
  const torch::Tensor n = normal_block(123, Stream::action_noise, 0, {200000});
  EXPECT_NEAR(n.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(n.std().item<double>(), 1.0, 0.01);
}

TEST(CounterRandom, PermutationIsAShuffleOfAllIndices) {
  const torch::Tensor order = permutation(123, Stream::minibatch_order, 1, 1000);
  EXPECT_TRUE(torch::equal(std::get<0>(order.sort()), torch::arange(1000, torch::kLong)));
  EXPECT_FALSE(torch::equal(order, torch::arange(1000, torch::kLong)));
  EXPECT_TRUE(torch::equal(order, permutation(123, Stream::minibatch_order, 1, 1000)));
  EXPECT_FALSE(torch::equal(order, permutation(123, Stream::minibatch_order, 2, 1000)));
}

}  // namespace
}  // namespace rl::random
