#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/bench/record.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/report/report.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::report {
namespace {

std::filesystem::path fixture_path(const std::string& name) { return std::filesystem::path(ZCUDA_FIXTURES_DIR) / "report" / name; }

TEST(ReportMerge, GroupsByConfigurationAndFlagsConflicts) {
  auto m = merge({fixture_path("report-a.json"), fixture_path("report-b.json"), fixture_path("report-c.json"), fixture_path("report-d.json")});
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
  auto m = merge({fixture_path("report-a.json"), fixture_path("report-b.json"), fixture_path("report-d.json"), fixture_path("report-e.json")});
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
  auto report = nlohmann::json::parse(test::read_file(fixture_path("report-a.json")));
  // A verify result where every core check passed, recorded with its libraries' roles.
  // Written in verify's own JSON form (its to_json), as verify saves it.
  auto saved = parse_record<verify::Report>(report["verify"], "verify result");
  ASSERT_TRUE(saved) << saved.error().message;
  saved->checks.clear();
  for (const auto& spec : verify::checks()) {
    verify::CheckResult c;
    c.name = spec.name;
    c.core = spec.core;
    c.status = spec.core ? verify::CheckStatus::pass : verify::CheckStatus::unsupported;
    c.stack = "zluda";
    verify::LibraryFile family, driver;
    family.role = spec.name.substr(0, spec.name.find('.'));
    driver.role = "driver";
    c.libraries = {family, driver};
    saved->checks.push_back(c);
  }
  report["verify"] = *saved;
  test::write_file(dir / "functional.json", report.dump());
  report["application_verified"] = true;
  test::write_file(dir / "bench.json", report.dump());
  auto m = merge({dir / "functional.json", dir / "bench.json", fixture_path("report-c.json")});
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
  auto m = merge({fixture_path("report-a.json"), dir / "not-a-report.json"});
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(m.error().message.find("not-a-report.json"), std::string::npos);
  test::write_file(dir / "garbage.json", "{{{");
  EXPECT_FALSE(merge({dir / "garbage.json"}));
  EXPECT_EQ(merge({}).error().kind, ErrorKind::usage);
}

// A bench of `rl-train` on one ZLUDA release against native, as `zcuda bench` records it.
bench::BenchRecord rl_train_bench(bool checked, bool zluda_ok) {
  bench::BenchRecord r;
  r.started = "2026-12-03T08:00:00Z";
  r.finished = "2026-12-03T08:05:00Z";
  r.app = {"C:\\Users\\<user>\\rl-train.exe", std::string(64, 'c'), {"--device", "cuda"}, std::nullopt};
  r.runs_per_variant = 2;
  if (checked) r.check = "rl-train --verify";
  for (int i = 0; i < 2; ++i) {
    bench::VariantRecord v;
    v.name = i == 0 ? "A" : "B";
    v.label = v.name;
    v.runtime.spec = i == 0 ? "v6-preview.69" : "native";
    if (i == 0) v.runtime.version = "v6-preview.69";
    for (int n = 1; n <= 2; ++n) {
      bench::RunResult run;
      run.number = n;
      run.values = {100, 13278, 13300};
      if (checked) run.check = bench::CheckResult{0, true, 1};
      if (i == 0 && !zluda_ok && n == 2) run.failure = "the check failed (exit code 1)";
      v.runs.push_back(run);
    }
    v.ok = i != 0 || zluda_ok;
    if (v.ok) {
      v.values = {13278, 13300, 13278, 13300};
      v.summary = bench::Summary{13289, 13278, 13300};
    }
    r.variants.push_back(v);
  }
  r.comparison.measure = "overall_sps ([0-9.]+)";
  r.comparison.verdict = zluda_ok ? bench::Verdict::no_clear_difference : bench::Verdict::invalid;
  return r;
}

// report-d (an RX 7900 XTX, gfx1100 candidate, verify never run) with bench records added.
std::filesystem::path report_with_benches(const test::TempDir& dir, const std::string& name, const std::vector<bench::BenchRecord>& benches) {
  auto report = nlohmann::json::parse(test::read_file(fixture_path("report-d.json")));
  report["bench"] = nlohmann::json::array();
  for (const auto& b : benches) report["bench"].push_back(bench::to_json(b));
  test::write_file(dir / name, report.dump());
  return dir / name;
}

TEST(ReportMerge, BenchesBecomeApplicationRows) {
  test::TempDir dir;
  auto m = merge(
      {report_with_benches(dir, "one.json", {rl_train_bench(true, true)}), report_with_benches(dir, "two.json", {rl_train_bench(false, true)})});
  ASSERT_TRUE(m) << m.error().message;
  const auto& apps = (*m)["applications"];
  ASSERT_EQ(apps.size(), 1u) << apps.dump();  // the native variant is not a ZLUDA row
  EXPECT_EQ(apps[0]["application"], "rl-train.exe");
  EXPECT_EQ(apps[0]["gfx"], "gfx1100");
  EXPECT_EQ(apps[0]["zluda"], "v6-preview.69");
  EXPECT_EQ(apps[0]["status"], "verified");
  EXPECT_EQ(apps[0]["benches"]["verified"], 1);
  EXPECT_EQ(apps[0]["benches"]["unchecked"], 1);
  EXPECT_DOUBLE_EQ(apps[0]["median"].get<double>(), 13289);
  const std::string md = render_matrix_markdown(*m);
  EXPECT_NE(md.find("| rl-train.exe | AMD Radeon RX 7900 XTX | gfx1100 | windows | v6-preview.69 | verified | 13289 |"), std::string::npos) << md;
}

TEST(ReportMerge, AVerifiedBenchOnZludaIsEvidenceAndAFailedOneCountsAgainst) {
  test::TempDir dir;
  auto verified = merge({report_with_benches(dir, "good.json", {rl_train_bench(true, true)})});
  ASSERT_TRUE(verified);
  ASSERT_EQ((*verified)["ready_to_validate"].size(), 1u) << (*verified)["ready_to_validate"].dump();
  EXPECT_EQ((*verified)["ready_to_validate"][0]["gfx"], "gfx1100");
  // Without an output check a bench is not evidence.
  auto unchecked = merge({report_with_benches(dir, "unchecked.json", {rl_train_bench(false, true)})});
  ASSERT_TRUE(unchecked);
  EXPECT_TRUE((*unchecked)["ready_to_validate"].empty());
  // A failed ZLUDA run outweighs a verified bench elsewhere.
  auto mixed = merge(
      {report_with_benches(dir, "good.json", {rl_train_bench(true, true)}), report_with_benches(dir, "bad.json", {rl_train_bench(true, false)})});
  ASSERT_TRUE(mixed);
  EXPECT_TRUE((*mixed)["ready_to_validate"].empty());
  EXPECT_EQ((*mixed)["applications"][0]["status"], "failed");
}

}  // namespace
}  // namespace zcuda::report
