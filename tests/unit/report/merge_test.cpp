#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/report/report.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::report {
namespace {

std::filesystem::path fixture(const std::string& name) { return std::filesystem::path(ZCUDA_FIXTURES_DIR) / "report" / name; }

TEST(ReportMerge, GroupsByConfigurationAndFlagsConflicts) {
  auto m = merge({fixture("report-a.json"), fixture("report-b.json"), fixture("report-c.json"), fixture("report-d.json")});
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ((*m)["reports"], 4);
  ASSERT_EQ((*m)["rows"].size(), 3u) << "a and c share a configuration";
  const nlohmann::json* rx9060 = nullptr;
  for (const auto& row : (*m)["rows"]) {
    if (row["gfx"] == "gfx1200") rx9060 = &row;
  }
  ASSERT_NE(rx9060, nullptr);
  EXPECT_EQ((*rx9060)["reports"], 2);
  EXPECT_EQ((*rx9060)["driver"], "25.9.1");
  EXPECT_EQ((*rx9060)["zluda"], "v6-preview.69");
  const auto& sgemm = (*rx9060)["results"]["cublas.sgemm"];
  EXPECT_TRUE(sgemm["conflict"].get<bool>());
  EXPECT_EQ(sgemm["counts"]["pass"], 1);
  EXPECT_EQ(sgemm["counts"]["fail"], 1);
  EXPECT_FALSE((*rx9060)["results"]["driver.init"]["conflict"].get<bool>());
}

TEST(ReportMerge, CandidatesWithPassingZludaEvidenceAreNamed) {
  auto m = merge({fixture("report-a.json"), fixture("report-b.json"), fixture("report-d.json"), fixture("report-e.json")});
  ASSERT_TRUE(m);
  const auto& ready = (*m)["ready_to_validate"];
  ASSERT_EQ(ready.size(), 1u) << ready.dump();
  EXPECT_EQ(ready[0]["gfx"], "gfx1201");
  // gfx1100 has only a run on NVIDIA's stack (report-e) and none verified (report-d): no evidence.
  std::string md = render_matrix_markdown(*m);
  EXPECT_NE(md.find("**gfx1201** is a candidate"), std::string::npos) << md;
  EXPECT_NE(md.find("| AMD Radeon RX 9070 XT | gfx1201 | windows | 25.9.1 | 6.4 | v6-preview.69 | 1 |"), std::string::npos) << md;
}

TEST(ReportMerge, BadInputIsRefusedWithTheFileNamed) {
  test::TempDir dir;
  test::write_file(dir / "not-a-report.json", "{\"hello\": 1}");
  auto m = merge({fixture("report-a.json"), dir / "not-a-report.json"});
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(m.error().message.find("not-a-report.json"), std::string::npos);
  test::write_file(dir / "garbage.json", "{{{");
  EXPECT_FALSE(merge({dir / "garbage.json"}));
  EXPECT_EQ(merge({}).error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace zcuda::report
