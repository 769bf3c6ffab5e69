// --verify: does the device compute what the CPU computes? The device (FP32) is compared with a
// CPU reference in double precision, so the check means something on a CPU too: an FP32 CPU that
// computed wrongly would disagree with its own double-precision reference.
//
// Three checks, in order; the first disagreement is named and ends the check:
//   forward  the policy mean and value on a fixed batch, from identical parameters
//   update   one full PPO consumption (GAE + the epoch + Adam) from identical parameters and an
//            identical rollout: the loss, the parameters after it and the step it took
//   run      a short training run (--iterations) from the same start on both: every loss and
//            return finite and within tolerance of the reference's
// The tolerances, and why they are what they are, are in docs/workload.md.
#pragma once

#include "ppo.hpp"
#include "report.hpp"
#include "torch_api.hpp"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace rl {

struct VerifyTolerances {
  double forward_rel_l2 = 5e-3;
  double update_loss_abs = 1e-4;
  double update_loss_rel = 1e-3;
  double update_parameters_rel_l2 = 1e-4;
  double update_step_rel_l2 = 5e-2;
  double run_loss_abs = 0.05;
  double run_loss_rel = 0.05;
  double run_return_abs = 0.05;
  double run_return_rel = 0.05;
};

struct VerifySetup {
  torch::Device device = torch::kCPU;
  std::int64_t arenas = 2048;
  std::int64_t steps_per_iteration = 32;
  int iterations = 2;
  std::uint64_t seed = 123;
  PpoConfig ppo;
  UpdateFault fault = UpdateFault::none;
};

struct VerifyOutcome {
  bool agreed = true;
  std::string first_disagreement;  // e.g. "update.parameters: relative L2 0.03 exceeds 1e-05"
};

// Each device iteration of the run check, for the usual per-iteration output and CSV.
using IterationSink = std::function<void(const IterationStats&)>;

VerifyOutcome run_verification(const VerifySetup& setup, const VerifyTolerances& tolerances, std::ostream& log,
                               const IterationSink& on_iteration = {});

}  // namespace rl
