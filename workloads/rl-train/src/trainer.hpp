// One training run: the model, its optimiser and the environment on one device and dtype, and
// the loop of iterations (collection, then consumption), each timed by phase.
#pragma once

#include "environment.hpp"
#include "model.hpp"
#include "ppo.hpp"
#include "report.hpp"
#include "torch_api.hpp"

#include <cstdint>
#include <memory>

namespace rl {

struct TrainerSetup {
  torch::Device device = torch::kCPU;
  torch::Dtype dtype = torch::kFloat;
  std::int64_t arenas = 2048;
  std::int64_t steps_per_iteration = 32;
  std::uint64_t seed = 123;
  PpoConfig ppo;
  UpdateFault fault = UpdateFault::none;
};

class Trainer {
 public:
  // The model is initialised in FP32 on the CPU and then converted, so runs in any dtype on any
  // device start from the same values.
  explicit Trainer(const TrainerSetup& setup);

  IterationStats run_iteration();

  ActorCritic& model() { return model_; }
  ArenaEnvironment& environment() { return environment_; }

 private:
  TrainerSetup setup_;
  PhaseClock clock_;
  ActorCritic model_;
  ArenaEnvironment environment_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  int iterations_done_ = 0;
};

// A model initialised for `seed` on `device` in `dtype` (FP32 values, converted).
ActorCritic make_model(std::uint64_t seed, torch::Device device, torch::Dtype dtype);

std::unique_ptr<torch::optim::Adam> make_optimizer(ActorCritic& model, const PpoConfig& config);

}  // namespace rl
