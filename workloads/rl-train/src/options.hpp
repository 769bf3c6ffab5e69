// rl-train's command line: what a run is asked to do, parsed and checked before any work starts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace rl {

struct Options {
  std::string device = "cpu";  // cpu, cuda or cuda:N
  int iterations = 5;
  std::int64_t timesteps = 65536;  // per iteration, over all arenas
  std::int64_t arenas = 2048;      // environments stepped together
  std::uint64_t seed = 123;
  std::int64_t minibatches = 16;  // per PPO epoch; 65,536 / 16 = 4,096 samples each
  int threads = 0;                // CPU threads for LibTorch; 0 keeps its default
  std::string csv_path;           // empty: no CSV
  std::string runtime_label;      // the CSV's runtime column
  std::string trial;              // the CSV's trial column
  bool verify = false;
  bool corrupt_update = false;  // test hook: --verify must catch it
  bool help = false;

  std::int64_t steps_per_iteration() const { return timesteps / arenas; }
};

// What went wrong with the command line, said so a person can fix it.
struct OptionError {
  std::string message;
  std::string hint;
};

struct ParsedOptions {
  std::optional<Options> options;  // set when parsing succeeded
  OptionError error;               // otherwise
};

// Reads the environment: the CSV's runtime and trial fall back to ZCUDA_BENCH_VARIANT and
// ZCUDA_BENCH_RUN, which `zcuda bench` sets for each run.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;

ParsedOptions parse_options(int argc, const char* const* argv, const EnvironmentLookup& environment);
std::optional<std::string> process_environment(const std::string& name);
std::string usage_text();

}  // namespace rl
