// Wall-clock time of a phase of GPU work: on a CUDA device, reading the clock first waits for
// the work queued so far (torch::cuda::synchronize, in LibTorch 1.13 and 2.x), so a phase's
// time is its work's time, not the time to queue it.
#pragma once

#include "torch_api.hpp"

#include <chrono>

namespace rl {

class PhaseClock {
 public:
  explicit PhaseClock(torch::Device device) : device_(device) {}

  double now() const {
    if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

 private:
  torch::Device device_;
};

}  // namespace rl
