// What one training iteration measured, as the per-iteration line and as a CSV row.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace rl {

struct IterationStats {
  int iteration = 0;           // 1-based
  std::int64_t timesteps = 0;  // environment steps collected
  double collection_s = 0;     // environment steps + inference, no gradients
  double inference_s = 0;      // the forward passes and action sampling inside collection
  double consumption_s = 0;    // GAE + the PPO epoch
  double ppo_learn_s = 0;      // the minibatch loop inside consumption
  double loss = 0;             // mean PPO loss over the epoch's minibatches
  double episode_return = 0;   // reward summed over the iteration's steps, mean over arenas

  double overall_sps() const { return static_cast<double>(timesteps) / (collection_s + consumption_s); }
  double collection_sps() const { return static_cast<double>(timesteps) / collection_s; }
  double consumption_sps() const { return static_cast<double>(timesteps) / consumption_s; }
};

// `iter N overall_sps X collection_sps X consumption_sps X inference_s X ppo_learn_s X loss X return X`
std::string iteration_line(const IterationStats& stats);

// The seed benchmark's columns, one row per iteration.
class CsvWriter {
 public:
  // Opens (truncates) the file and writes the header; ok() says whether that worked.
  CsvWriter(const std::string& path, std::string runtime, std::string trial);
  bool ok() const { return static_cast<bool>(out_); }
  void write(const IterationStats& stats);

 private:
  std::ofstream out_;
  std::string runtime_;
  std::string trial_;
};

}  // namespace rl
