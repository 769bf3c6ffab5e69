#include "model.hpp"
#include "trainer.hpp"

#include <gtest/gtest.h>

namespace rl {
namespace {

// The count from the layout, layer by layer: a Linear(in, out) has in*out + out parameters, a
// LayerNorm(n) 2n, the log standard deviation one per action.
std::int64_t count_from_layout() {
  std::int64_t total = 0;
  const auto tower = [&](const std::array<std::int64_t, 2>& widths, std::int64_t outputs) {
    std::int64_t inputs = ModelLayout::observations;
    for (const std::int64_t width : widths) {
      total += inputs * width + width + 2 * width;
      inputs = width;
    }
    total += inputs * outputs + outputs;
  };
  tower(ModelLayout::actor_hidden, ModelLayout::actions);
  tower(ModelLayout::critic_hidden, 1);
  return total + ModelLayout::actions;
}

TEST(Model, HasExactlyTheSeedWorkloadsParameterCount) {
  ActorCritic model;
  EXPECT_EQ(parameter_count(model), 2216347);
  EXPECT_EQ(count_from_layout(), 2216347);
  EXPECT_EQ(ModelLayout::parameters, 2216347);
}

TEST(Model, UsesLayerNormAndLeakyRelu) {
  ActorCritic model;
  int norms = 0;
  int leaky = 0;
  for (const auto& module : model->modules(/*include_self=*/false)) {
    if (module->as<torch::nn::LayerNormImpl>() != nullptr) ++norms;
    if (module->as<torch::nn::LeakyReLUImpl>() != nullptr) ++leaky;
  }
  EXPECT_EQ(norms, 4);
  EXPECT_EQ(leaky, 4);
}

TEST(Model, InitialisationDependsOnlyOnTheSeed) {
  const torch::Tensor a = flat_parameters(make_model(123, torch::kCPU, torch::kFloat));
  const torch::Tensor b = flat_parameters(make_model(123, torch::kCPU, torch::kFloat));
  const torch::Tensor c = flat_parameters(make_model(124, torch::kCPU, torch::kFloat));
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_FALSE(torch::equal(a, c));
  // FP32 values converted to double: the reference starts from exactly the device's numbers.
  EXPECT_TRUE(torch::equal(a, flat_parameters(make_model(123, torch::kCPU, torch::kDouble))));
}

TEST(Model, ForwardGivesMeanLogStdAndValue) {
  ActorCritic model = make_model(123, torch::kCPU, torch::kFloat);
  const PolicyOutput out = model->forward(torch::zeros({5, ModelLayout::observations}));
  EXPECT_EQ(out.mean.sizes(), (std::vector<std::int64_t>{5, ModelLayout::actions}));
  EXPECT_EQ(out.value.sizes(), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(out.log_std.sizes(), (std::vector<std::int64_t>{ModelLayout::actions}));
}

}  // namespace
}  // namespace rl
