#include "verify.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace rl {
namespace {

VerifySetup small_setup() {
  VerifySetup setup;
  setup.device = torch::kCPU;
  setup.arenas = 64;
  setup.steps_per_iteration = 16;
  setup.iterations = 2;
  setup.ppo.minibatches = 4;
  return setup;
}

TEST(Verify, CpuAgreesWithItsDoublePrecisionReference) {
  std::ostringstream log;
  int iterations = 0;
  const VerifyOutcome outcome = run_verification(small_setup(), VerifyTolerances{}, log, [&](const IterationStats&) { ++iterations; });
  EXPECT_TRUE(outcome.agreed) << outcome.first_disagreement << "\n" << log.str();
  EXPECT_EQ(iterations, 2);
  EXPECT_NE(log.str().find("verify forward.mean relative_l2"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("verify run.iter2.return"), std::string::npos) << log.str();
}

TEST(Verify, CatchesACorruptedUpdate) {
  VerifySetup setup = small_setup();
  setup.fault = UpdateFault::flipped_gradient;
  std::ostringstream log;
  const VerifyOutcome outcome = run_verification(setup, VerifyTolerances{}, log);
  EXPECT_FALSE(outcome.agreed) << log.str();
  EXPECT_EQ(outcome.first_disagreement.rfind("update.", 0), 0u) << outcome.first_disagreement;
}

TEST(Verify, TolerancesThatCannotBeMetFailTheForwardCheck) {
  // An FP32 forward pass is never bit-identical to a double-precision one: a zero tolerance must
  // fail, which shows the comparison is live.
  VerifyTolerances exact;
  exact.forward_rel_l2 = 0;
  std::ostringstream log;
  const VerifyOutcome outcome = run_verification(small_setup(), exact, log);
  EXPECT_FALSE(outcome.agreed);
  EXPECT_EQ(outcome.first_disagreement.rfind("forward.mean", 0), 0u) << outcome.first_disagreement;
}

}  // namespace
}  // namespace rl
