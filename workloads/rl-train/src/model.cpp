#include "model.hpp"

#include "counter_random.hpp"

#include <cmath>
#include <vector>

namespace rl {
namespace {

torch::nn::Sequential make_body(std::int64_t inputs, const std::array<std::int64_t, 2>& widths) {
  torch::nn::Sequential body;
  std::int64_t previous = inputs;
  for (const std::int64_t width : widths) {
    body->push_back(torch::nn::Linear(previous, width));
    body->push_back(torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
    body->push_back(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(ModelLayout::leaky_slope)));
    previous = width;
  }
  return body;
}

}  // namespace

ActorCriticImpl::ActorCriticImpl() {
  const auto& layout = ModelLayout{};
  actor_body = register_module("actor_body", make_body(layout.observations, layout.actor_hidden));
  actor_head = register_module("actor_head", torch::nn::Linear(layout.actor_hidden.back(), layout.actions));
  critic_body = register_module("critic_body", make_body(layout.observations, layout.critic_hidden));
  critic_head = register_module("critic_head", torch::nn::Linear(layout.critic_hidden.back(), 1));
  log_std = register_parameter("log_std", torch::zeros({layout.actions}));
}

PolicyOutput ActorCriticImpl::forward(const torch::Tensor& observations) {
  PolicyOutput out;
  out.mean = actor_head->forward(actor_body->forward(observations));
  out.value = critic_head->forward(critic_body->forward(observations)).squeeze(-1);
  out.log_std = log_std;
  return out;
}

std::int64_t parameter_count(const ActorCritic& model) {
  std::int64_t count = 0;
  for (const auto& parameter : model->parameters()) count += parameter.numel();
  return count;
}

void initialise(ActorCritic& model, std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  std::uint64_t counter = 0;  // running over all weights, in registration order
  const auto fill_linear = [&](torch::nn::LinearImpl& linear, double scale) {
    const auto fan_in = linear.weight.size(1);
    const double bound = scale * std::sqrt(3.0 / static_cast<double>(fan_in));
    const torch::Tensor draws = random::uniform_block(seed, random::Stream::parameters, counter, linear.weight.sizes());
    counter += static_cast<std::uint64_t>(linear.weight.numel());
    linear.weight.copy_((draws * 2.0 - 1.0) * bound);
    linear.bias.zero_();
  };
  for (auto* body : {&model->actor_body, &model->critic_body}) {
    for (const auto& layer : (*body)->children()) {
      if (auto* linear = layer->as<torch::nn::LinearImpl>()) fill_linear(*linear, 1.0);
      if (auto* norm = layer->as<torch::nn::LayerNormImpl>()) {
        norm->weight.fill_(1.0);
        norm->bias.zero_();
      }
    }
  }
  fill_linear(*model->actor_head, 0.01);
  fill_linear(*model->critic_head, 1.0);
  model->log_std.fill_(-0.5);
}

void copy_parameters(const ActorCritic& from, ActorCritic& to) {
  torch::NoGradGuard no_grad;
  const auto source = from->parameters();
  auto target = to->parameters();
  TORCH_CHECK(source.size() == target.size(), "copy_parameters: the models differ in layout");
  for (std::size_t i = 0; i < source.size(); ++i) target[i].copy_(source[i]);
}

torch::Tensor flat_parameters(const ActorCritic& model) {
  std::vector<torch::Tensor> pieces;
  for (const auto& parameter : model->parameters()) {
    pieces.push_back(parameter.detach().to(torch::kCPU, torch::kDouble).reshape({-1}));
  }
  return torch::cat(pieces);
}

}  // namespace rl
