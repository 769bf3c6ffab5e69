// The record reads back exactly what its writer wrote, and says which field is wrong otherwise.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <zcuda/bench/record.hpp>
#include <zcuda/platform/files.hpp>

#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::bench {
namespace {

BenchRecord sample() {
  BenchRecord r;
  r.started = "2026-12-03T08:00:00Z";
  r.finished = "2026-12-03T08:01:00Z";
  r.zcuda_version = "0.1.0";
  r.app = {"/opt/app/rl-train", std::string(64, 'a'), {"--device", "cuda", "a b"}, "pytorch"};
  r.runs_per_variant = 2;
  r.expect_exit = 0;
  r.timeout_seconds = 30.5;
  r.check = "cmp out.txt expected.txt";
  for (int i = 0; i < 2; ++i) {
    VariantRecord v;
    v.name = i == 0 ? "A" : "B";
    v.label = i == 0 ? "v6" : "v7";
    v.runtime = {i == 0 ? "v6-preview.69" : "native",
                 i == 0 ? "/home/zcuda/zluda" : "",
                 i == 0 ? std::optional<std::string>("v6-preview.69") : std::nullopt,
                 i == 0,  // through zluda.exe
                 {{"libcuda.so.1", std::string(64, 'b')}}};
    v.env = {{"NVIDIA_TF32_OVERRIDE", "0"}, {"A", "x=y"}};
    v.program = ProgramInfo{i == 0 ? "/opt/app/venv/bin/python" : "/opt/app/venv-rocm/bin/python",
                            std::string(64, i == 0 ? 'c' : 'd'),
                            {"train.py", "--steps", "10"},
                            i == 0 ? std::optional<std::string>("pytorch") : std::nullopt};
    for (int n = 1; n <= 2; ++n) {
      RunResult run;
      run.number = n;
      run.seconds = 1.25 * n;
      run.values = {100.0 * n, 200.5, 300};
      run.check = CheckResult{0, true, 0.01};
      v.runs.push_back(run);
    }
    v.values = {200.5, 300, 200.5, 300};
    v.summary = Summary{250.25, 200.5, 300};
    v.ok = true;
    r.variants.push_back(v);
  }
  RunResult failed;
  failed.number = 3;
  failed.exit_code = 139;
  failed.signal = 11;
  failed.failure = "killed by signal 11 (SIGSEGV)";
  failed.output_tail = "Segmentation fault\n";
  r.variants[1].runs.push_back(failed);
  r.order = "ABBA";
  r.order_seed = 77;
  r.target_percent = 2.5;
  r.pilot_pairs = 1;
  r.variants[0].runs[0].position = 1;
  r.variants[0].runs[0].started = "2026-12-03T08:00:01Z";
  ComparisonRecord& c = r.comparison;
  c.measure = "overall_sps ([0-9.]+)";
  c.better = Better::higher;
  c.warmup = 1;
  c.b_vs_a_percent = -3.03;
  c.ci95_percent = std::pair(-4.1, -1.9);
  c.verdict = Verdict::a_better;
  c.summary = "B is 3.0% slower than A (95% CI 1.9% to 4.1%)";
  c.withheld = "";
  c.pairs = {{1, 250.25, 240.5, -0.0397}, {2, 251, 243, -0.0324}};
  c.sd_log_ratio = 0.005;
  c.smallest_detectable_percent = 1.5;
  c.pairs_needed = 7;
  c.outliers = {{"A", 2, -12.5}};
  c.warnings = {"a warning"};
  c.unpaired = UnpairedRecord{-3.1, {-5.0, -1.0}, Verdict::a_better};
  c.bootstrap_seed = 20261203;
  c.bootstrap_resamples = 10000;
  r.machine = {platform::Os::linux, {{"AMD Radeon RX 9060 XT", "amd", "gfx1200", "amdgpu"}}, "6.12.0", "6.4.0 at /opt/rocm", false};
  return r;
}

TEST(BenchRecord, ReadsBackExactlyWhatWasWritten) {
  const BenchRecord written = sample();
  const nlohmann::json json = to_json(written);
  auto read = bench_record_from_json(json);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(to_json(*read), json);
  EXPECT_EQ(read->variants[1].runs[2].signal, 11);
  EXPECT_EQ(read->variants[0].env.at("A"), "x=y");
  EXPECT_EQ(read->comparison.verdict, Verdict::a_better);
  ASSERT_TRUE(read->comparison.ci95_percent);
  EXPECT_DOUBLE_EQ(read->comparison.ci95_percent->first, -4.1);
  EXPECT_EQ(read->app.profile, "pytorch");
  ASSERT_TRUE(read->variants[1].program);
  EXPECT_EQ(read->variants[1].program->path, "/opt/app/venv-rocm/bin/python");
  EXPECT_EQ(read->variants[1].program->sha256, std::string(64, 'd'));
  EXPECT_FALSE(read->variants[1].program->profile);
  // Records before schema 4 have no program per variant: both ran `app`.
  nlohmann::json older = json;
  older["schema"] = older["record_schema"] = 3;
  for (auto& v : older["variants"]) v.erase("program");
  auto old_read = bench_record_from_json(older);
  ASSERT_TRUE(old_read) << old_read.error().message;
  EXPECT_FALSE(old_read->variants[0].program);
}

TEST(BenchRecord, TheFieldsTheIssueNames) {
  const nlohmann::json j = to_json(sample());
  EXPECT_EQ(j.at("schema"), 4);
  EXPECT_EQ(j.at("order"), "ABBA");
  EXPECT_EQ(j.at("order_seed"), 77);
  EXPECT_EQ(j.at("pilot_pairs"), 1);
  EXPECT_EQ(j.at("comparison").at("warnings"), nlohmann::json::array({"a warning"}));
  for (const char* key : {"method", "pairs", "smallest_detectable_percent", "pairs_needed", "outliers", "unpaired"}) {
    EXPECT_TRUE(j.at("comparison").contains(key)) << key;
  }
  EXPECT_EQ(j.at("comparison").at("method"), kPairedMethod);
  for (const char* key : {"position", "started"}) EXPECT_TRUE(j.at("variants").at(0).at("runs").at(0).contains(key)) << key;
  EXPECT_EQ(j.at("command"), "bench");
  for (const char* key : {"path", "sha256", "args", "profile"}) EXPECT_TRUE(j.at("app").contains(key)) << key;
  for (const char* key : {"label", "runtime", "env", "runs", "values", "median", "min", "max", "ok"}) {
    EXPECT_TRUE(j.at("variants").at(0).contains(key)) << key;
  }
  for (const char* key : {"exit_code", "seconds", "values", "check"}) EXPECT_TRUE(j.at("variants").at(0).at("runs").at(0).contains(key)) << key;
  for (const char* key : {"measure", "better", "b_vs_a_percent", "ci95_percent", "verdict"}) EXPECT_TRUE(j.at("comparison").contains(key)) << key;
  EXPECT_TRUE(j.contains("machine"));
}

TEST(BenchRecord, OutputVerifiedNeedsACheckOnEveryRun) {
  BenchRecord r = sample();
  r.variants[1].runs.pop_back();  // drop the failed run
  EXPECT_TRUE(r.output_verified());
  r.variants[0].runs[1].check.reset();
  EXPECT_FALSE(r.output_verified());
  BenchRecord unchecked = sample();
  unchecked.check.reset();
  EXPECT_FALSE(unchecked.output_verified());
}

TEST(BenchRecord, WrongFieldsAreNamed) {
  nlohmann::json j = to_json(sample());
  j["variants"][0]["runs"][0].erase("exit_code");
  auto read = bench_record_from_json(j);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(read.error().message.find("exit_code"), std::string::npos) << read.error().message;
  nlohmann::json bad_verdict = to_json(sample());
  bad_verdict["comparison"]["verdict"] = "maybe";
  EXPECT_FALSE(bench_record_from_json(bad_verdict));
  nlohmann::json newer = to_json(sample());
  newer["record_schema"] = kRecordSchema + 1;
  auto unsupported = bench_record_from_json(newer);
  ASSERT_FALSE(unsupported);
  EXPECT_NE(unsupported.error().message.find(fmt::format("schema {}", kRecordSchema + 1)), std::string::npos);
}

TEST(BenchRecord, SchemaOneRecordsStillRead) {
  // A record the zcuda of 2026-12-03 wrote on the H200, committed as it came.
  auto text = platform::read_file(std::filesystem::path(ZCUDA_SOURCE_DIR) / "docs/validation/nvidia-h200-bench-aa.json");
  ASSERT_TRUE(text) << text.error().message;
  auto read = bench_record_from_json(nlohmann::json::parse(*text));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->schema, 1);
  EXPECT_EQ(read->order, "ABABABABAB");  // schema 1 always alternated
  EXPECT_EQ(read->comparison.method, kSchema1Method);
  EXPECT_EQ(read->variants[0].runs[0].position, 0);
  EXPECT_TRUE(read->comparison.pairs.empty());
}

// Issue 33: a withheld verdict was stored as no-clear-difference; it has its own word now, and a
// record written before (schema 2, a `withheld` reason beside no-clear-difference) reads as one.
TEST(BenchRecord, AWithheldVerdictHasItsOwnWord) {
  BenchRecord r = sample();
  r.comparison.verdict = Verdict::withheld;
  r.comparison.withheld = "4 pairs (a verdict needs 5)";
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("comparison").at("verdict"), "withheld");
  auto read = bench_record_from_json(j);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->comparison.verdict, Verdict::withheld);
  nlohmann::json older = j;
  older["schema"] = older["record_schema"] = 2;
  older.erase("order_seed");
  older.erase("pilot_pairs");
  older["comparison"].erase("warnings");
  older["comparison"]["verdict"] = "no-clear-difference";
  auto old_read = bench_record_from_json(older);
  ASSERT_TRUE(old_read) << old_read.error().message;
  EXPECT_EQ(old_read->comparison.verdict, Verdict::withheld);
  EXPECT_FALSE(old_read->order_seed);
  older["comparison"]["withheld"] = "";
  EXPECT_EQ(bench_record_from_json(older)->comparison.verdict, Verdict::no_clear_difference);
}

TEST(BenchRecord, WrittenUnderHomeAndReadNewestFirst) {
  test::TempDir tmp;
  home::Home home;
  home.root = tmp.path();
  home.state = tmp / "state";
  BenchRecord first = sample();
  first.started = "first";
  auto a = write_bench_record(home, first);
  ASSERT_TRUE(a) << a.error().message;
  BenchRecord second = sample();
  second.started = "second";
  auto b = write_bench_record(home, second);
  ASSERT_TRUE(b);
  EXPECT_EQ(a->parent_path(), tmp / "state" / "bench");
  test::write_file(tmp / "state" / "bench" / "99999999T999999-broken.json", "{not json");
  auto records = read_bench_records(home, 10);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].record.started, "second");
  EXPECT_EQ(records[1].record.started, "first");
  EXPECT_EQ(read_bench_records(home, 1).size(), 1u);
}

}  // namespace
}  // namespace zcuda::bench
