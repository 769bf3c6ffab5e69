#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/report/report.hpp>
#include <zcuda/verify/verify.hpp>

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
  EXPECT_NE(md.find("| AMD Radeon RX 9070 XT | gfx1201 | windows | 25.9.1 | 6.4 | v6-preview.69 | 1 | detected |"), std::string::npos) << md;
}

// Each row counts the ladder's levels of its reports, in the words verify uses.
TEST(ReportMerge, RowsCarryTheEvidenceLevel) {
  test::TempDir dir;
  auto report = nlohmann::json::parse(test::read_file(fixture("report-a.json")));
  // A verify result where every core check passed, recorded with its libraries' roles.
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& spec : verify::checks()) {
    const auto family = spec.name.substr(0, spec.name.find('.'));
    checks.push_back({{"name", spec.name}, {"core", spec.core}, {"status", spec.core ? "pass" : "unsupported"},
                      {"libraries", {{{"role", family}}, {{"role", "driver"}}}}});
  }
  report["verify"]["checks"] = checks;
  test::write_file(dir / "functional.json", report.dump());
  report["application_verified"] = true;
  test::write_file(dir / "bench.json", report.dump());
  auto m = merge({dir / "functional.json", dir / "bench.json", fixture("report-c.json")});
  ASSERT_TRUE(m) << m.error().message;
  const nlohmann::json* row = nullptr;
  for (const auto& r : (*m)["rows"]) {
    if (r["gfx"] == "gfx1200") row = &r;
  }
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["levels"]["functional"], 1);
  EXPECT_EQ((*row)["levels"]["application verified"], 1);
  EXPECT_EQ((*row)["levels"].size(), 3u) << (*row)["levels"].dump();
  EXPECT_EQ(evidence_level(report)["id"], "application-verified");
  EXPECT_EQ(evidence_level(nlohmann::json::object())["reason"], "zcuda verify has not been run");
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
