#include "options.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace rl {
namespace {

ParsedOptions parse(std::vector<const char*> arguments, std::map<std::string, std::string> environment = {}) {
  arguments.insert(arguments.begin(), "rl-train");
  return parse_options(static_cast<int>(arguments.size()), arguments.data(), [&](const std::string& name) -> std::optional<std::string> {
    const auto found = environment.find(name);
    if (found == environment.end()) return std::nullopt;
    return found->second;
  });
}

TEST(Options, DefaultsAreTheSeedWorkloadsShape) {
  const ParsedOptions parsed = parse({});
  ASSERT_TRUE(parsed.options);
  EXPECT_EQ(parsed.options->timesteps, 65536);
  EXPECT_EQ(parsed.options->arenas, 2048);
  EXPECT_EQ(parsed.options->seed, 123u);
  EXPECT_EQ(parsed.options->steps_per_iteration(), 32);
  EXPECT_EQ(parsed.options->device, "cpu");
}

TEST(Options, ReadsValuesInBothSpellings) {
  const ParsedOptions parsed = parse({"--device", "cuda:1", "--iterations=7", "--seed", "9", "--verify"});
  ASSERT_TRUE(parsed.options) << parsed.error.message;
  EXPECT_EQ(parsed.options->device, "cuda:1");
  EXPECT_EQ(parsed.options->iterations, 7);
  EXPECT_EQ(parsed.options->seed, 9u);
  EXPECT_TRUE(parsed.options->verify);
}

TEST(Options, RefusesBadInputWithAMessageAndAHint) {
  for (const auto& arguments : std::vector<std::vector<const char*>>{{"--device", "gpu"},
                                                                     {"--iterations", "0"},
                                                                     {"--iterations", "-3"},
                                                                     {"--arenas", "12x"},
                                                                     {"--timesteps", "1000"},
                                                                     {"--minibatches", "3"},
                                                                     {"--frobnicate"},
                                                                     {"--seed"},
                                                                     {"--verify=1"}}) {
    const ParsedOptions parsed = parse(arguments);
    EXPECT_FALSE(parsed.options) << arguments[0];
    EXPECT_FALSE(parsed.error.message.empty());
    EXPECT_FALSE(parsed.error.hint.empty());
  }
  EXPECT_NE(parse({"--timesteps", "1000"}).error.message.find("multiple of --arenas"), std::string::npos);
}

TEST(Options, CsvLabelsComeFromZcudaBenchWhenNotGiven) {
  const std::map<std::string, std::string> bench{{"ZCUDA_BENCH_VARIANT", "B"}, {"ZCUDA_BENCH_RUN", "2"}};
  const ParsedOptions from_bench = parse({}, bench);
  EXPECT_EQ(from_bench.options->runtime_label, "B");
  EXPECT_EQ(from_bench.options->trial, "2");
  const ParsedOptions given = parse({"--runtime-label", "v7", "--trial", "5"}, bench);
  EXPECT_EQ(given.options->runtime_label, "v7");
  EXPECT_EQ(given.options->trial, "5");
  EXPECT_EQ(parse({}).options->trial, "1");
}

TEST(Report, IterationLineHasTheSeedsFieldsInOrder) {
  IterationStats stats;
  stats.iteration = 3;
  stats.timesteps = 65536;
  stats.collection_s = 2.0;
  stats.consumption_s = 6.0;
  stats.inference_s = 0.5;
  stats.ppo_learn_s = 5.5;
  stats.loss = 0.25;
  stats.episode_return = -1.5;
  EXPECT_EQ(iteration_line(stats),
            "iter 3 overall_sps 8192.00 collection_sps 32768.00 consumption_sps 10922.67 inference_s 0.500000 "
            "ppo_learn_s 5.500000 loss 0.250000 return -1.500000");
}

}  // namespace
}  // namespace rl
