#include "counter_random.hpp"
#include "environment.hpp"
#include "ppo.hpp"
#include "trainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace rl {
namespace {

const auto kCpu = torch::TensorOptions().dtype(torch::kFloat);

struct Trajectory {
  torch::Tensor observations, rewards, dones;
};

// `steps` steps of `arenas` arenas with a fixed sequence of actions (not from the seed under
// test), drawing the events in blocks of `block` steps.
Trajectory run(std::uint64_t seed, std::int64_t arenas, std::int64_t steps, std::int64_t block = 1000) {
  ArenaEnvironment environment(arenas, seed, kCpu);
  const torch::Tensor actions = random::normal_block(999, random::Stream::action_noise, 0, {steps, arenas, 2}).to(kCpu);
  std::vector<torch::Tensor> observations, rewards, dones;
  torch::Tensor events;
  for (std::int64_t t = 0; t < steps; ++t) {
    if (t % block == 0) events = environment.draw_events(std::min(block, steps - t));
    observations.push_back(environment.observe());
    const StepResult result = environment.step(actions[t], events[t % block]);
    rewards.push_back(result.reward);
    dones.push_back(result.done);
  }
  return Trajectory{torch::stack(observations), torch::stack(rewards), torch::stack(dones)};
}

TEST(Environment, SameSeedGivesIdenticalTrajectories) {
  const Trajectory a = run(123, 64, 150);
  const Trajectory b = run(123, 64, 150);
  EXPECT_TRUE(torch::equal(a.observations, b.observations));
  EXPECT_TRUE(torch::equal(a.rewards, b.rewards));
  EXPECT_TRUE(torch::equal(a.dones, b.dones));
}

TEST(Environment, DifferentSeedGivesDifferentTrajectories) {
  const Trajectory a = run(123, 64, 150);
  const Trajectory b = run(124, 64, 150);
  EXPECT_FALSE(torch::equal(a.observations[0], b.observations[0]));
  EXPECT_FALSE(torch::equal(a.rewards, b.rewards));
}

TEST(Environment, EventsDoNotDependOnHowManyStepsAreDrawnAtOnce) {
  const Trajectory whole = run(123, 32, 150);
  const Trajectory blocks = run(123, 32, 150, 7);
  EXPECT_TRUE(torch::equal(whole.observations, blocks.observations));
  EXPECT_TRUE(torch::equal(whole.rewards, blocks.rewards));
}

TEST(Environment, EpisodesLast64StepsFromStaggeredStarts) {
  const Trajectory t = run(123, 256, 128);
  // Every arena ends exactly two episodes in 128 steps, not all at the same step.
  EXPECT_TRUE(torch::equal(t.dones.sum(0), torch::full({256}, 2.0f)));
  EXPECT_LT(t.dones.sum(1).max().item<float>(), 64.0f);
}

TEST(Environment, ObservationsHaveTheModelsWidthAndAreFinite) {
  ArenaEnvironment environment(16, 123, kCpu);
  const torch::Tensor observation = environment.observe();
  EXPECT_EQ(observation.sizes(), (std::vector<std::int64_t>{16, ArenaEnvironment::observation_size}));
  EXPECT_TRUE(torch::isfinite(observation).all().item<bool>());
}

// The structure a policy can learn: steering towards the target with the arena's rotation
// undone earns far more than not moving or pushing at random.
TEST(Environment, SkillIsRewarded) {
  const auto total_reward = [](int policy) {
    ArenaEnvironment environment(256, 123, kCpu);
    const torch::Tensor events = environment.draw_events(128);
    const torch::Tensor noise = random::normal_block(5, random::Stream::action_noise, 0, {128, 256, 2}).to(kCpu);
    double total = 0;
    for (std::int64_t t = 0; t < 128; ++t) {
      torch::Tensor action = policy == 0 ? torch::zeros({256, 2}) : policy == 1 ? noise[t] : environment.oracle_action();
      total += environment.step(action, events[t]).reward.mean().item<double>();
    }
    return total;
  };
  const double idle = total_reward(0);
  const double random_pushes = total_reward(1);
  const double oracle = total_reward(2);
  RecordProperty("idle", std::to_string(idle));
  RecordProperty("random", std::to_string(random_pushes));
  RecordProperty("oracle", std::to_string(oracle));
  EXPECT_GT(oracle, idle + 5.0);
  EXPECT_GT(oracle, random_pushes + 5.0);
}

TEST(Collection, SameSeedGivesIdenticalRollouts) {
  const auto rollout = [](std::uint64_t seed) {
    ActorCritic model = make_model(seed, torch::kCPU, torch::kFloat);
    ArenaEnvironment environment(32, seed, kCpu);
    CollectTiming timing;
    return collect(model, environment, 10, seed, PhaseClock(torch::kCPU), timing);
  };
  const Rollout a = rollout(123);
  const Rollout b = rollout(123);
  const Rollout c = rollout(124);
  EXPECT_TRUE(torch::equal(a.actions, b.actions));
  EXPECT_TRUE(torch::equal(a.rewards, b.rewards));
  EXPECT_TRUE(torch::equal(a.last_values, b.last_values));
  EXPECT_FALSE(torch::equal(a.actions, c.actions));
}

}  // namespace
}  // namespace rl
