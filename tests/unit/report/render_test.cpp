#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/report/report.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::report {
namespace {

std::string fixture(const std::string& name) { return std::string(ZCUDA_FIXTURES_DIR) + "/report/" + name; }

// Golden file: regenerate with ZCUDA_UPDATE_GOLDEN=1 and review the diff.
TEST(ReportMarkdown, MatchesGolden) {
  auto report = nlohmann::json::parse(test::read_file(fixture("report-a.json")));
  std::string markdown = render_markdown(report);
  if (std::getenv("ZCUDA_UPDATE_GOLDEN")) test::write_file(fixture("report-a.md"), markdown);
  EXPECT_EQ(markdown, test::read_file(fixture("report-a.md")));
}

TEST(ReportMarkdown, SummaryFirstThenCollapsibleDetails) {
  auto report = nlohmann::json::parse(test::read_file(fixture("report-a.json")));
  std::string md = render_markdown(report);
  EXPECT_EQ(md.rfind("## zcuda report", 0), 0u);
  auto summary_end = md.find("<details>");
  ASSERT_NE(summary_end, std::string::npos);
  EXPECT_NE(md.substr(0, summary_end).find("AMD Radeon RX 9060 XT (gfx1200), validated"), std::string::npos);
  EXPECT_NE(md.substr(0, summary_end).find("4 pass, 2 unsupported"), std::string::npos);
  EXPECT_NE(md.find("<summary>Verify results</summary>"), std::string::npos);
}

TEST(ReportMarkdown, EmptyMachineSaysWhatIsAbsent) {
  nlohmann::json report = {{"schema", 1},
                           {"zcuda", {{"version", "0.1.0"}, {"build", "x"}}},
                           {"system", {{"os_name", "Linux"}, {"ram_bytes", nullptr}}},
                           {"detect", {{"gpus", nlohmann::json::array()}, {"hip", nullptr}}},
                           {"installs", nlohmann::json::array()},
                           {"verify", nullptr},
                           {"runs", nlohmann::json::array()},
                           {"environment", {{"variables", nlohmann::json::object()}}},
                           {"redacted", true}};
  std::string md = render_markdown(report);
  EXPECT_NE(md.find("none found"), std::string::npos);
  EXPECT_NE(md.find("nothing installed by zcuda"), std::string::npos);
  EXPECT_NE(md.find("has not been run"), std::string::npos);
  EXPECT_NE(md.find("No runs recorded."), std::string::npos);
}

}  // namespace
}  // namespace zcuda::report
