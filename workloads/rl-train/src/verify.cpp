#include "verify.hpp"

#include "counter_random.hpp"
#include "environment.hpp"
#include "trainer.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

namespace rl {
namespace {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

double relative_l2(const torch::Tensor& value, const torch::Tensor& reference) {
  const torch::Tensor a = value.detach().to(torch::kCPU, torch::kDouble);
  const torch::Tensor b = reference.detach().to(torch::kCPU, torch::kDouble);
  const double scale = b.norm().item<double>();
  return (a - b).norm().item<double>() / (scale > 0 ? scale : 1.0);
}

// Logs each comparison; remembers the first that fails.
class Checker {
 public:
  explicit Checker(std::ostream& log) : log_(log) {}

  void within(const std::string& name, const std::string& measure, double value, double limit) {
    const bool ok = std::isfinite(value) && value <= limit;
    log_ << "verify " << name << ' ' << measure << ' ' << number(value) << " limit " << number(limit) << (ok ? " ok" : " FAILED") << std::endl;
    if (!ok) fail(name + ": " + measure + ' ' + number(value) + " exceeds the limit " + number(limit));
  }

  void close(const std::string& name, double value, double reference, double absolute, double relative) {
    const double difference = std::fabs(value - reference);
    const double limit = absolute + relative * std::fabs(reference);
    const bool finite = std::isfinite(value) && std::isfinite(reference);
    const bool ok = finite && difference <= limit;
    log_ << "verify " << name << ' ' << number(value) << " reference " << number(reference) << " difference " << number(difference) << " limit "
         << number(limit) << (ok ? " ok" : " FAILED") << std::endl;
    if (!finite) {
      fail(name + ": not finite (" + number(value) + ", reference " + number(reference) + ")");
    } else if (!ok) {
      fail(name + ": " + number(value) + " against the reference's " + number(reference) + ", difference " + number(difference) +
           " exceeds the limit " + number(limit));
    }
  }

  bool agreed() const { return !first_.has_value(); }
  VerifyOutcome outcome() const { return VerifyOutcome{agreed(), first_.value_or("")}; }

 private:
  void fail(std::string message) {
    if (!first_) first_ = std::move(message);
  }

  std::ostream& log_;
  std::optional<std::string> first_;
};

torch::TensorOptions reference_options() { return torch::TensorOptions().dtype(torch::kDouble).device(torch::kCPU); }

// Observations the policy meets: 1,024 arenas from their start, moved a few steps by the oracle.
torch::Tensor fixed_batch(std::uint64_t seed) {
  ArenaEnvironment environment(1024, random::mix64(seed + static_cast<std::uint64_t>(random::Stream::verify_batch)), reference_options());
  const torch::Tensor events = environment.draw_events(8);
  for (std::int64_t t = 0; t < 8; ++t) environment.step(environment.oracle_action(), events[t]);
  return environment.observe();
}

void check_forward(const VerifySetup& setup, const VerifyTolerances& tolerances, Checker& checker) {
  ActorCritic device_model = make_model(setup.seed, setup.device, torch::kFloat);
  ActorCritic reference_model = make_model(setup.seed, torch::kCPU, torch::kDouble);
  // The reference sees exactly the FP32 inputs the device sees.
  const torch::Tensor batch = fixed_batch(setup.seed).to(torch::kFloat);
  torch::NoGradGuard no_grad;
  const PolicyOutput device_out = device_model->forward(batch.to(setup.device));
  const PolicyOutput reference_out = reference_model->forward(batch.to(torch::kDouble));
  checker.within("forward.mean", "relative_l2", relative_l2(device_out.mean, reference_out.mean), tolerances.forward_rel_l2);
  checker.within("forward.value", "relative_l2", relative_l2(device_out.value, reference_out.value), tolerances.forward_rel_l2);
}

void check_update(const VerifySetup& setup, const VerifyTolerances& tolerances, Checker& checker) {
  ActorCritic device_model = make_model(setup.seed, setup.device, torch::kFloat);
  ActorCritic reference_model = make_model(setup.seed, torch::kCPU, torch::kDouble);
  const torch::Tensor start = flat_parameters(reference_model);

  // One rollout, made by the reference and rounded to FP32, so both update from identical data.
  ArenaEnvironment environment(setup.arenas, setup.seed, reference_options());
  CollectTiming unused;
  const Rollout rollout = collect(reference_model, environment, setup.steps_per_iteration, setup.seed, PhaseClock(torch::kCPU), unused)
                              .to(torch::TensorOptions().dtype(torch::kFloat));

  const auto device_optimizer = make_optimizer(device_model, setup.ppo);
  const auto reference_optimizer = make_optimizer(reference_model, setup.ppo);
  const UpdateResult device_update =
      ppo_update(device_model, *device_optimizer, rollout.to(torch::TensorOptions().dtype(torch::kFloat).device(setup.device)), setup.ppo, setup.seed,
                 1, PhaseClock(setup.device), setup.fault);
  const UpdateResult reference_update =
      ppo_update(reference_model, *reference_optimizer, rollout.to(reference_options()), setup.ppo, setup.seed, 1, PhaseClock(torch::kCPU));

  const torch::Tensor device_after = flat_parameters(device_model);
  const torch::Tensor reference_after = flat_parameters(reference_model);
  checker.close("update.loss", device_update.mean_loss.item<double>(), reference_update.mean_loss.item<double>(), tolerances.update_loss_abs,
                tolerances.update_loss_rel);
  checker.within("update.parameters", "relative_l2", relative_l2(device_after, reference_after), tolerances.update_parameters_rel_l2);
  checker.within("update.step", "relative_l2", relative_l2(device_after - start, reference_after - start), tolerances.update_step_rel_l2);
}

void check_run(const VerifySetup& setup, const VerifyTolerances& tolerances, Checker& checker, const IterationSink& on_iteration) {
  TrainerSetup device_setup;
  device_setup.device = setup.device;
  device_setup.dtype = torch::kFloat;
  device_setup.arenas = setup.arenas;
  device_setup.steps_per_iteration = setup.steps_per_iteration;
  device_setup.seed = setup.seed;
  device_setup.ppo = setup.ppo;
  device_setup.fault = setup.fault;
  TrainerSetup reference_setup = device_setup;
  reference_setup.device = torch::kCPU;
  reference_setup.dtype = torch::kDouble;
  reference_setup.fault = UpdateFault::none;

  Trainer device(device_setup);
  Trainer reference(reference_setup);
  for (int i = 1; i <= setup.iterations; ++i) {
    const IterationStats device_stats = device.run_iteration();
    if (on_iteration) on_iteration(device_stats);
    const IterationStats reference_stats = reference.run_iteration();
    const std::string prefix = "run.iter" + std::to_string(i);
    checker.close(prefix + ".loss", device_stats.loss, reference_stats.loss, tolerances.run_loss_abs, tolerances.run_loss_rel);
    checker.close(prefix + ".return", device_stats.episode_return, reference_stats.episode_return, tolerances.run_return_abs,
                  tolerances.run_return_rel);
    if (!checker.agreed()) return;
  }
}

}  // namespace

VerifyOutcome run_verification(const VerifySetup& setup, const VerifyTolerances& tolerances, std::ostream& log, const IterationSink& on_iteration) {
  Checker checker(log);
  check_forward(setup, tolerances, checker);
  if (checker.agreed()) check_update(setup, tolerances, checker);
  if (checker.agreed()) check_run(setup, tolerances, checker, on_iteration);
  return checker.outcome();
}

}  // namespace rl
