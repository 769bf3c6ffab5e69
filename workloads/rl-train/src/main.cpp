// rl-train: parses the command line, picks the device, then trains (printing one line per
// iteration) or verifies (--verify). Exit codes: 0 success, 1 verification disagreed, 2 bad
// command line, 3 the device or LibTorch failed.
#include "model.hpp"
#include "options.hpp"
#include "report.hpp"
#include "torch_api.hpp"
#include "trainer.hpp"
#include "verify.hpp"

#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace {

constexpr int kExitDisagreement = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRuntime = 3;

int usage_error(const rl::OptionError& error) {
  std::cerr << "rl-train: error: " << error.message << "\nhint: " << error.hint << std::endl;
  return kExitUsage;
}

// The device asked for, if this LibTorch and machine have it.
std::optional<torch::Device> open_device(const std::string& name) {
  const torch::Device device(name);
  if (device.is_cpu()) return device;
  if (!torch::cuda::is_available()) {
    std::cerr << "rl-train: error: --device " << name << ": this LibTorch sees no CUDA device\n"
              << "hint: use a CUDA build of LibTorch on a machine with a CUDA GPU (or a runtime such as ZLUDA), "
                 "or --device cpu"
              << std::endl;
    return std::nullopt;
  }
  const auto count = static_cast<std::int64_t>(torch::cuda::device_count());
  if (device.has_index() && device.index() >= count) {
    std::cerr << "rl-train: error: --device " << name << ": there are " << count << " CUDA device(s)\n"
              << "hint: choose cuda:0 to cuda:" << count - 1 << std::endl;
    return std::nullopt;
  }
  return device;
}

int train(const rl::Options& options, torch::Device device) {
  std::unique_ptr<rl::CsvWriter> csv;
  if (!options.csv_path.empty()) {
    csv = std::make_unique<rl::CsvWriter>(options.csv_path, options.runtime_label, options.trial);
    if (!csv->ok()) {
      std::cerr << "rl-train: error: cannot write --csv " << options.csv_path << "\nhint: check the folder exists" << std::endl;
      return kExitRuntime;
    }
  }
  const auto on_iteration = [&](const rl::IterationStats& stats) {
    std::cout << rl::iteration_line(stats) << std::endl;
    if (csv) csv->write(stats);
  };

  rl::PpoConfig ppo;
  ppo.minibatches = options.minibatches;
  const rl::UpdateFault fault = options.corrupt_update ? rl::UpdateFault::flipped_gradient : rl::UpdateFault::none;

  if (options.verify) {
    rl::VerifySetup setup;
    setup.device = device;
    setup.arenas = options.arenas;
    setup.steps_per_iteration = options.steps_per_iteration();
    setup.iterations = options.iterations;
    setup.seed = options.seed;
    setup.ppo = ppo;
    setup.fault = fault;
    const rl::VerifyOutcome outcome = rl::run_verification(setup, rl::VerifyTolerances{}, std::cout, on_iteration);
    if (!outcome.agreed) {
      std::cout << "verify failed: " << outcome.first_disagreement << std::endl;
      return kExitDisagreement;
    }
    std::cout << "verify passed: " << device.str() << " agrees with the CPU double-precision reference" << std::endl;
    return 0;
  }

  rl::TrainerSetup setup;
  setup.device = device;
  setup.arenas = options.arenas;
  setup.steps_per_iteration = options.steps_per_iteration();
  setup.seed = options.seed;
  setup.ppo = ppo;
  setup.fault = fault;
  rl::Trainer trainer(setup);
  for (int i = 0; i < options.iterations; ++i) on_iteration(trainer.run_iteration());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const rl::ParsedOptions parsed = rl::parse_options(argc, argv, rl::process_environment);
  if (!parsed.options) return usage_error(parsed.error);
  const rl::Options& options = *parsed.options;
  if (options.help) {
    std::cout << rl::usage_text();
    return 0;
  }
  try {
    if (options.threads > 0) torch::set_num_threads(options.threads);
    const std::optional<torch::Device> device = open_device(options.device);
    if (!device) return kExitRuntime;
    rl::ActorCritic model;
    std::cout << "parameters " << rl::parameter_count(model) << std::endl;
    std::cout << "device " << device->str() << " timesteps " << options.timesteps << " arenas " << options.arenas << " steps_per_arena "
              << options.steps_per_iteration() << " seed " << options.seed << " threads " << torch::get_num_threads() << std::endl;
    return train(options, *device);
  } catch (const std::exception& error) {
    std::cerr << "rl-train: error: " << error.what() << std::endl;
    return kExitRuntime;
  }
}
