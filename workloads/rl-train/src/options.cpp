// A small hand-written parser: rl-train depends on LibTorch alone, so that it builds wherever
// LibTorch does (a GPU machine with pip torch, Windows with the LibTorch zip), where no
// command-line library can be assumed.
#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <regex>

namespace rl {
namespace {

bool parse_integer(const std::string& text, std::int64_t minimum, std::int64_t maximum, std::int64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value > static_cast<unsigned long long>(maximum)) return false;
  out = static_cast<std::int64_t>(value);
  return out >= minimum;
}

ParsedOptions failure(std::string message, std::string hint) {
  ParsedOptions result;
  result.error = OptionError{std::move(message), std::move(hint)};
  return result;
}

const std::string kHelpHint = "run rl-train --help for the options";

}  // namespace

std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

ParsedOptions parse_options(int argc, const char* const* argv, const EnvironmentLookup& environment) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string name = argv[i];
    std::optional<std::string> inline_value;
    if (const auto equals = name.find('='); name.rfind("--", 0) == 0 && equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    const bool is_flag = name == "--help" || name == "-h" || name == "--verify" || name == "--corrupt-update";
    if (is_flag) {
      if (inline_value) return failure(name + " takes no value", kHelpHint);
      if (name == "--help" || name == "-h") options.help = true;
      if (name == "--verify") options.verify = true;
      if (name == "--corrupt-update") options.corrupt_update = true;
      continue;
    }
    static const char* const kValued[] = {"--device",      "--iterations", "--timesteps", "--arenas",        "--seed",
                                          "--minibatches", "--threads",    "--csv",       "--runtime-label", "--trial"};
    bool known = false;
    for (const char* option : kValued) known = known || name == option;
    if (!known) return failure("unknown option '" + name + "'", kHelpHint);
    std::string value;
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return failure(name + " needs a value", kHelpHint);
    }

    std::int64_t number = 0;
    const auto integer = [&](std::int64_t minimum, std::int64_t maximum) { return parse_integer(value, minimum, maximum, number); };
    const auto out_of_range = [&](const std::string& what) { return failure(name + " must be " + what + " (got '" + value + "')", kHelpHint); };
    if (name == "--device") {
      static const std::regex device_pattern("cpu|cuda(:[0-9]{1,3})?");
      if (!std::regex_match(value, device_pattern)) {
        return failure("--device must be cpu, cuda or cuda:N (got '" + value + "')", "for example --device cuda:0");
      }
      options.device = value;
    } else if (name == "--iterations") {
      if (!integer(1, 1000000)) return out_of_range("a whole number from 1");
      options.iterations = static_cast<int>(number);
    } else if (name == "--timesteps") {
      if (!integer(1, std::int64_t{1} << 32)) return out_of_range("a whole number from 1");
      options.timesteps = number;
    } else if (name == "--arenas") {
      if (!integer(1, std::int64_t{1} << 24)) return out_of_range("a whole number from 1");
      options.arenas = number;
    } else if (name == "--seed") {
      if (!integer(0, std::numeric_limits<std::int64_t>::max())) return out_of_range("a whole number from 0");
      options.seed = static_cast<std::uint64_t>(number);
    } else if (name == "--minibatches") {
      if (!integer(1, std::int64_t{1} << 24)) return out_of_range("a whole number from 1");
      options.minibatches = number;
    } else if (name == "--threads") {
      if (!integer(1, 4096)) return out_of_range("a whole number from 1");
      options.threads = static_cast<int>(number);
    } else if (name == "--csv") {
      if (value.empty()) return failure("--csv needs a file name", kHelpHint);
      options.csv_path = value;
    } else if (name == "--runtime-label") {
      options.runtime_label = value;
    } else if (name == "--trial") {
      options.trial = value;
    }
  }

  if (options.timesteps % options.arenas != 0) {
    return failure("--timesteps (" + std::to_string(options.timesteps) + ") must be a multiple of --arenas (" + std::to_string(options.arenas) + ")",
                   "every arena takes the same number of steps per iteration, e.g. --timesteps 65536 --arenas 2048");
  }
  if (options.timesteps % options.minibatches != 0) {
    return failure(
        "--timesteps (" + std::to_string(options.timesteps) + ") must be a multiple of --minibatches (" + std::to_string(options.minibatches) + ")",
        "the PPO epoch splits the iteration's samples into equal minibatches");
  }
  if (options.runtime_label.empty()) options.runtime_label = environment("ZCUDA_BENCH_VARIANT").value_or("");
  if (options.trial.empty()) options.trial = environment("ZCUDA_BENCH_RUN").value_or("1");
  ParsedOptions result;
  result.options = options;
  return result;
}

std::string usage_text() {
  return R"(rl-train: the zcuda reference workload, a PPO actor-critic trainer on LibTorch (docs/workload.md)

usage: rl-train [OPTIONS]

  --device DEVICE       cpu, cuda or cuda:N (default cpu)
  --iterations N        training iterations (default 5)
  --timesteps N         environment steps per iteration over all arenas (default 65536)
  --arenas N            environments stepped together (default 2048)
  --seed N              seed of every random number (default 123)
  --minibatches N       minibatches of the one PPO epoch per iteration (default 16)
  --threads N           CPU threads LibTorch may use (default: LibTorch's choice)
  --csv FILE            also write one row per iteration to FILE (columns: runtime, trial,
                        iteration, overall_sps, collection_sps, consumption_sps, inference_s,
                        ppo_learn_s, collection_s, consumption_s)
  --runtime-label TEXT  the CSV's runtime column (default: $ZCUDA_BENCH_VARIANT)
  --trial TEXT          the CSV's trial column (default: $ZCUDA_BENCH_RUN, else 1)
  --verify              check the device against a CPU double-precision reference (forward
                        pass, one PPO update, a short run of --iterations) instead of training;
                        exit 0 on agreement, 1 naming the first disagreement
  --corrupt-update      test hook: corrupt the device's PPO update, which --verify must catch
  -h, --help            this text

Each iteration prints:
  iter N overall_sps X collection_sps X consumption_sps X inference_s X ppo_learn_s X loss X return X

Exit codes: 0 success, 1 --verify found a disagreement, 2 bad command line, 3 the device or
LibTorch failed.
)";
}

}  // namespace rl
