#include "ppo.hpp"

#include "counter_random.hpp"

#include <cmath>
#include <vector>

namespace rl {
namespace {

constexpr double kLogTwoPi = 1.8378770664093454835606594728112;

struct Targets {
  torch::Tensor advantages;  // [steps, arenas]
  torch::Tensor returns;     // [steps, arenas]
};

// Generalised advantage estimation, backwards over the steps, every arena at once.
Targets generalised_advantages(const Rollout& rollout, const PpoConfig& config) {
  const std::int64_t steps = rollout.rewards.size(0);
  std::vector<torch::Tensor> advantages(static_cast<std::size_t>(steps));
  torch::Tensor running = torch::zeros_like(rollout.last_values);
  for (std::int64_t t = steps - 1; t >= 0; --t) {
    const torch::Tensor next_value = t == steps - 1 ? rollout.last_values : rollout.values[t + 1];
    const torch::Tensor continues = 1.0 - rollout.dones[t];
    const torch::Tensor delta = rollout.rewards[t] + config.gamma * next_value * continues - rollout.values[t];
    running = delta + config.gamma * config.gae_lambda * continues * running;
    advantages[static_cast<std::size_t>(t)] = running;
  }
  Targets targets;
  targets.advantages = torch::stack(advantages);
  targets.returns = targets.advantages + rollout.values;
  return targets;
}

}  // namespace

Rollout Rollout::to(torch::TensorOptions options) const {
  const auto convert = [&](const torch::Tensor& t) { return t.to(options); };
  return Rollout{convert(observations), convert(actions), convert(log_probs),  convert(values),
                 convert(rewards),      convert(dones),   convert(last_values)};
}

torch::Tensor gaussian_log_prob(const torch::Tensor& actions, const torch::Tensor& mean, const torch::Tensor& log_std) {
  const torch::Tensor z = (actions - mean) * torch::exp(-log_std);
  return (z.pow(2) * -0.5 - log_std - 0.5 * kLogTwoPi).sum(-1);
}

Rollout collect(ActorCritic& model, ArenaEnvironment& environment, std::int64_t steps, std::uint64_t seed, const PhaseClock& clock,
                CollectTiming& timing) {
  torch::NoGradGuard no_grad;
  const double start = clock.now();
  const std::int64_t arenas = environment.arenas();
  const auto options = torch::TensorOptions().dtype(model->log_std.scalar_type()).device(model->log_std.device());
  // One host-to-device copy each for the iteration's events and action noise.
  const torch::Tensor events = environment.draw_events(steps);
  const auto noise_first = static_cast<std::uint64_t>(environment.steps_taken() * arenas * ArenaEnvironment::action_size);
  const torch::Tensor noise =
      random::normal_block(seed, random::Stream::action_noise, noise_first, {steps, arenas, ArenaEnvironment::action_size}).to(options);

  std::vector<torch::Tensor> observations, actions, log_probs, values, rewards, dones;
  double inference = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    const torch::Tensor observation = environment.observe();
    const double inference_start = clock.now();
    const PolicyOutput policy = model->forward(observation);
    const torch::Tensor action = policy.mean + torch::exp(policy.log_std) * noise[t];
    const torch::Tensor log_prob = gaussian_log_prob(action, policy.mean, policy.log_std);
    inference += clock.now() - inference_start;

    const StepResult result = environment.step(action, events[t]);
    observations.push_back(observation);
    actions.push_back(action);
    log_probs.push_back(log_prob);
    values.push_back(policy.value);
    rewards.push_back(result.reward);
    dones.push_back(result.done);
  }
  const torch::Tensor last_observation = environment.observe();
  const double inference_start = clock.now();
  const torch::Tensor last_values = model->forward(last_observation).value;
  inference += clock.now() - inference_start;

  Rollout rollout{torch::stack(observations),
                  torch::stack(actions),
                  torch::stack(log_probs),
                  torch::stack(values),
                  torch::stack(rewards),
                  torch::stack(dones),
                  last_values};
  timing.seconds = clock.now() - start;
  timing.inference_seconds = inference;
  return rollout;
}

UpdateResult ppo_update(ActorCritic& model, torch::optim::Adam& optimizer, const Rollout& rollout, const PpoConfig& config, std::uint64_t seed,
                        std::uint64_t update_index, const PhaseClock& clock, UpdateFault fault) {
  Targets targets;
  {
    torch::NoGradGuard no_grad;
    targets = generalised_advantages(rollout, config);
  }
  const std::int64_t samples = rollout.rewards.numel();
  const torch::Tensor observations = rollout.observations.reshape({samples, -1});
  const torch::Tensor actions = rollout.actions.reshape({samples, -1});
  const torch::Tensor old_log_probs = rollout.log_probs.reshape({samples});
  const torch::Tensor returns = targets.returns.reshape({samples});
  torch::Tensor advantages = targets.advantages.reshape({samples});
  advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8);
  const torch::Tensor order = random::permutation(seed, random::Stream::minibatch_order, update_index, samples).to(observations.device());

  const double learn_start = clock.now();
  const std::int64_t minibatch = samples / config.minibatches;
  torch::Tensor loss_sum = torch::zeros(std::vector<std::int64_t>{}, observations.options());  // a scalar
  for (std::int64_t m = 0; m < config.minibatches; ++m) {
    const torch::Tensor index = order.slice(0, m * minibatch, (m + 1) * minibatch);
    const PolicyOutput policy = model->forward(observations.index_select(0, index));
    const torch::Tensor log_prob = gaussian_log_prob(actions.index_select(0, index), policy.mean, policy.log_std);
    const torch::Tensor ratio = torch::exp(log_prob - old_log_probs.index_select(0, index));
    const torch::Tensor advantage = advantages.index_select(0, index);
    const torch::Tensor policy_loss = -torch::minimum(ratio * advantage, ratio.clamp(1.0 - config.clip, 1.0 + config.clip) * advantage).mean();
    const torch::Tensor value_loss = (policy.value - returns.index_select(0, index)).pow(2).mean() * 0.5;
    const torch::Tensor entropy = (policy.log_std + 0.5 * (kLogTwoPi + 1.0)).sum();
    const torch::Tensor loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy;

    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), config.max_grad_norm);
    if (fault == UpdateFault::flipped_gradient) {
      model->actor_body->ptr(0)->as<torch::nn::LinearImpl>()->weight.grad().neg_();
    }
    optimizer.step();
    loss_sum += loss.detach();
  }
  UpdateResult result;
  result.mean_loss = loss_sum / static_cast<double>(config.minibatches);
  result.learn_seconds = clock.now() - learn_start;
  return result;
}

}  // namespace rl
