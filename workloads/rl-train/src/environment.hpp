// The synthetic environment: `arenas` independent point-mass navigation tasks, all stepped at
// once in tensor operations on the model's device (no host round trip per step).
//
// In each arena an agent at position p (in the square [-1,1]^2) with velocity v must reach a
// target. Its 2-D action is a thrust, clamped to [-1,1], that the arena rotates by a hidden-at-
// reset angle theta before applying it (the agent observes cos/sin theta and must undo the
// rotation), and a position-dependent current pushes it. Reward: 2 x the distance gained
// towards the target, +1 on reaching it (the target then moves elsewhere), minus a small thrust
// cost. Episodes last 64 steps; arenas start at staggered points of their episode.
//
// All randomness (start states, new targets, resets) comes from the counter-based streams,
// drawn on the host for a whole iteration at once and moved to the device in one copy.
#pragma once

#include "torch_api.hpp"

#include <cstdint>

namespace rl {

struct StepResult {
  torch::Tensor reward;  // [arenas]
  torch::Tensor done;    // [arenas], 1 where the episode ended with this step
};

class ArenaEnvironment {
 public:
  static constexpr std::int64_t observation_size = 34;
  static constexpr std::int64_t action_size = 2;
  static constexpr std::int64_t episode_length = 64;
  static constexpr std::int64_t event_channels = 5;  // new target x, y; restart x, y; rotation

  ArenaEnvironment(std::int64_t arenas, std::uint64_t seed, torch::TensorOptions options);

  torch::Tensor observe() const;  // [arenas, observation_size]

  // The random events of the next `steps` steps, [steps, arenas, event_channels] on the device.
  torch::Tensor draw_events(std::int64_t steps) const;

  // Advances every arena by one step. `events` is one step's slice of draw_events(); the steps
  // must be taken in order after the draw.
  StepResult step(const torch::Tensor& action, const torch::Tensor& events);

  std::int64_t arenas() const { return arenas_; }
  std::int64_t steps_taken() const { return steps_taken_; }

  // The state, readable for tests.
  const torch::Tensor& position() const { return position_; }
  const torch::Tensor& velocity() const { return velocity_; }
  const torch::Tensor& target() const { return target_; }
  const torch::Tensor& rotation() const { return rotation_; }

  // The thrust that an agent knowing the rules would choose: towards the target, with the
  // arena's rotation undone. Tests use it to show the task rewards skill.
  torch::Tensor oracle_action() const;

 private:
  torch::Tensor current_at(const torch::Tensor& position) const;

  std::int64_t arenas_;
  std::uint64_t seed_;
  torch::TensorOptions options_;
  std::int64_t steps_taken_ = 0;
  torch::Tensor position_;    // [arenas, 2]
  torch::Tensor velocity_;    // [arenas, 2]
  torch::Tensor target_;      // [arenas, 2]
  torch::Tensor rotation_;    // [arenas]
  torch::Tensor time_;        // [arenas], steps into the episode
  torch::Tensor projection_;  // [2, 10], fixed features of the direction to the target
};

}  // namespace rl
