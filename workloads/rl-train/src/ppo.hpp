// PPO: collection (environment steps and inference without gradients) and consumption (GAE,
// then one epoch of the clipped objective over shuffled minibatches, with Adam).
#pragma once

#include "environment.hpp"
#include "model.hpp"
#include "phase_clock.hpp"
#include "torch_api.hpp"

#include <cstdint>

namespace rl {

struct PpoConfig {
  double gamma = 0.99;
  double gae_lambda = 0.95;
  double clip = 0.2;
  double value_coef = 0.5;
  double entropy_coef = 0.001;
  double learning_rate = 3e-4;
  double adam_eps = 1e-5;
  double max_grad_norm = 0.5;
  std::int64_t minibatches = 16;
};

struct Rollout {
  torch::Tensor observations;  // [steps, arenas, observation_size]
  torch::Tensor actions;       // [steps, arenas, action_size], as sampled (before clamping)
  torch::Tensor log_probs;     // [steps, arenas]
  torch::Tensor values;        // [steps, arenas]
  torch::Tensor rewards;       // [steps, arenas]
  torch::Tensor dones;         // [steps, arenas]
  torch::Tensor last_values;   // [arenas], the value of the state after the last step

  Rollout to(torch::TensorOptions options) const;
};

struct CollectTiming {
  double seconds = 0;
  double inference_seconds = 0;
};

// Steps every arena `steps` times with actions sampled from the policy; the action noise comes
// from the counter-based stream, so the same seed gives the same samples on every device.
Rollout collect(ActorCritic& model, ArenaEnvironment& environment, std::int64_t steps, std::uint64_t seed, const PhaseClock& clock,
                CollectTiming& timing);

torch::Tensor gaussian_log_prob(const torch::Tensor& actions, const torch::Tensor& mean, const torch::Tensor& log_std);

// Test hook for --verify: flips the sign of one layer's weight gradient, as a backend with a
// wrong GEMM would.
enum class UpdateFault { none, flipped_gradient };

struct UpdateResult {
  torch::Tensor mean_loss;  // scalar on the device; read it after the timing
  double learn_seconds = 0;
};

// One consumption: GAE, advantage normalisation, one shuffled epoch (the shuffle is the
// `update_index`-th permutation of the seed's stream).
UpdateResult ppo_update(ActorCritic& model, torch::optim::Adam& optimizer, const Rollout& rollout, const PpoConfig& config, std::uint64_t seed,
                        std::uint64_t update_index, const PhaseClock& clock, UpdateFault fault = UpdateFault::none);

}  // namespace rl
