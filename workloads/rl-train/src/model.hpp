// The actor-critic network: two towers of Linear -> LayerNorm -> LeakyReLU, a Gaussian policy
// head with a learned log standard deviation, and a value head. Its widths are chosen so the
// parameter count is exactly the seed workload's 2,216,347 (docs/workload.md has the arithmetic).
#pragma once

#include "torch_api.hpp"

#include <array>
#include <cstdint>

namespace rl {

struct ModelLayout {
  static constexpr std::int64_t observations = 34;
  static constexpr std::int64_t actions = 2;
  static constexpr std::array<std::int64_t, 2> actor_hidden{1024, 1024};
  static constexpr std::array<std::int64_t, 2> critic_hidden{670, 1632};
  static constexpr std::int64_t parameters = 2216347;
  static constexpr double leaky_slope = 0.01;
};

struct PolicyOutput {
  torch::Tensor mean;     // [batch, actions]
  torch::Tensor log_std;  // [actions], the same for every observation
  torch::Tensor value;    // [batch]
};

class ActorCriticImpl : public torch::nn::Module {
 public:
  ActorCriticImpl();
  PolicyOutput forward(const torch::Tensor& observations);

  torch::nn::Sequential actor_body{nullptr};
  torch::nn::Linear actor_head{nullptr};
  torch::nn::Sequential critic_body{nullptr};
  torch::nn::Linear critic_head{nullptr};
  torch::Tensor log_std;
};
TORCH_MODULE(ActorCritic);

// Number of trainable scalars.
std::int64_t parameter_count(const ActorCritic& model);

// Deterministic initial weights from the counter-based stream (not LibTorch's generator), so
// every device and LibTorch version starts from the same numbers: Linear weights uniform with
// variance 1/fan_in (the policy head's scaled by 0.01, so early actions are the noise's),
// biases 0, LayerNorm gain 1 and shift 0, log standard deviation -0.5.
void initialise(ActorCritic& model, std::uint64_t seed);

// Copies values (converting dtype and device) from one model to another of the same layout.
void copy_parameters(const ActorCritic& from, ActorCritic& to);

// All parameters, flattened into one CPU double tensor (for comparisons).
torch::Tensor flat_parameters(const ActorCritic& model);

}  // namespace rl
