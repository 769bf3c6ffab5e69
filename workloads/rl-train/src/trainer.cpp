#include "trainer.hpp"

namespace rl {

ActorCritic make_model(std::uint64_t seed, torch::Device device, torch::Dtype dtype) {
  ActorCritic model;
  initialise(model, seed);
  model->to(device, dtype);
  return model;
}

std::unique_ptr<torch::optim::Adam> make_optimizer(ActorCritic& model, const PpoConfig& config) {
  return std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(config.learning_rate).eps(config.adam_eps));
}

Trainer::Trainer(const TrainerSetup& setup)
    : setup_(setup),
      clock_(setup.device),
      model_(make_model(setup.seed, setup.device, setup.dtype)),
      environment_(setup.arenas, setup.seed, torch::TensorOptions().dtype(setup.dtype).device(setup.device)),
      optimizer_(make_optimizer(model_, setup.ppo)) {}

IterationStats Trainer::run_iteration() {
  IterationStats stats;
  stats.iteration = ++iterations_done_;
  stats.timesteps = setup_.arenas * setup_.steps_per_iteration;

  CollectTiming collection;
  const Rollout rollout = collect(model_, environment_, setup_.steps_per_iteration, setup_.seed, clock_, collection);
  stats.collection_s = collection.seconds;
  stats.inference_s = collection.inference_seconds;

  const double consumption_start = clock_.now();
  const UpdateResult update =
      ppo_update(model_, *optimizer_, rollout, setup_.ppo, setup_.seed, static_cast<std::uint64_t>(stats.iteration), clock_, setup_.fault);
  stats.consumption_s = clock_.now() - consumption_start;
  stats.ppo_learn_s = update.learn_seconds;

  // Read back only now, outside the timed phases: one device-to-host copy per iteration.
  stats.loss = update.mean_loss.item<double>();
  stats.episode_return = rollout.rewards.sum(0).mean().item<double>();
  return stats;
}

}  // namespace rl
