#pragma once
// A launch plan's inputs for tests: a program under a folder with a space, an empty runtime
// folder, Linux as the system; and the environment change the plan made to a variable.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <zcuda/launch/launch.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::launch::test_support {

class PlanFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    program = tmp / "app dir" / "app.exe";
    test::write_file(program, "program");
    runtime = tmp / "runtime";
    std::filesystem::create_directories(runtime);
    options.program = program;
    options.runtime.dir = runtime;
    options.os = platform::Os::linux;
  }
  // A copy, not a pointer: GCC 12 at -O3 takes a returned null pointer for a dereference.
  std::optional<EnvChange> change(const LaunchPlan& plan, const std::string& name) {
    auto it = std::find_if(plan.changes.begin(), plan.changes.end(), [&](const EnvChange& c) { return c.name == name; });
    if (it == plan.changes.end()) return std::nullopt;
    return *it;
  }
  test::TempDir tmp;
  std::filesystem::path program;
  std::filesystem::path runtime;
  Options options;
};

}  // namespace zcuda::launch::test_support
