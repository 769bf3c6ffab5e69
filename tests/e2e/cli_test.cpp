#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::test {
namespace {

TEST(Cli, VersionPrintsVersionAndBuild) {
  auto r = run_zcuda({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("zcuda 0.", 0), 0u) << r.out;
}

TEST(Cli, HelpListsOnlyRegisteredCommands) {
  auto r = run_zcuda({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
  EXPECT_NE(r.out.find("--home"), std::string::npos);
}

TEST(Cli, UnknownCommandIsAUsageError) {
  auto r = run_zcuda({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(Cli, NoCommandIsAUsageError) {
  auto r = run_zcuda({});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace zcuda::test
