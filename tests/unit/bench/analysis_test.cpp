// The committed H200 records recomputed from themselves: the paired figure of every schema 2
// record is what analyse() gives from its runs, and the older A/A record, recomputed with the
// paired method, claims no difference.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <zcuda/bench/analysis.hpp>
#include <zcuda/platform/files.hpp>
#include "zcuda_test_paths.hpp"

namespace zcuda::bench {
namespace {

namespace fs = std::filesystem;

const fs::path kValidation = fs::path(ZCUDA_SOURCE_DIR) / "docs" / "validation";

BenchRecord read_record(const fs::path& file) {
  auto text = platform::read_file(file);
  EXPECT_TRUE(text) << file;
  auto record = bench_record_from_json(nlohmann::json::parse(text ? *text : "{}"));
  EXPECT_TRUE(record) << file << ": " << (record ? "" : record.error().message);
  return record ? *record : BenchRecord{};
}

// Figures equal up to the last bits a different libm may round differently.
void expect_same_comparison(const ComparisonRecord& stored, const ComparisonRecord& again, const std::string& what) {
  EXPECT_EQ(again.verdict, stored.verdict) << what;
  EXPECT_EQ(again.summary, stored.summary) << what;
  EXPECT_EQ(again.method, stored.method) << what;
  ASSERT_EQ(again.pairs.size(), stored.pairs.size()) << what;
  for (std::size_t i = 0; i < again.pairs.size(); ++i) {
    EXPECT_DOUBLE_EQ(again.pairs[i].a, stored.pairs[i].a) << what;
    EXPECT_DOUBLE_EQ(again.pairs[i].b, stored.pairs[i].b) << what;
  }
  ASSERT_EQ(again.b_vs_a_percent.has_value(), stored.b_vs_a_percent.has_value()) << what;
  if (again.b_vs_a_percent) {
    EXPECT_NEAR(*again.b_vs_a_percent, *stored.b_vs_a_percent, 1e-9) << what;
  }
  ASSERT_EQ(again.ci95_percent.has_value(), stored.ci95_percent.has_value()) << what;
  if (again.ci95_percent) {
    EXPECT_NEAR(again.ci95_percent->first, stored.ci95_percent->first, 1e-9) << what;
    EXPECT_NEAR(again.ci95_percent->second, stored.ci95_percent->second, 1e-9) << what;
  }
  EXPECT_EQ(again.pairs_needed, stored.pairs_needed) << what;
  EXPECT_EQ(again.outliers.size(), stored.outliers.size()) << what;
}

TEST(BenchAnalysis, EveryPairedRecordRecomputesFromItself) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(kValidation)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("nvidia-h200-bench-") || !name.ends_with(".json") || name.ends_with("-recomputed.json")) continue;
    const BenchRecord record = read_record(entry.path());
    if (record.comparison.method != kPairedMethod) continue;  // the older records: below
    ++seen;
    expect_same_comparison(record.comparison, analyse(record, settings_of(record)), name);
  }
  EXPECT_GE(seen, 4);  // the paired H200 runs of 2026-12-04 (docs/validation/README.md)
}

TEST(BenchAnalysis, TheOlderAaRecordClaimsNoDifferenceWhenPaired) {
  const BenchRecord record = read_record(kValidation / "nvidia-h200-bench-aa.json");
  ASSERT_EQ(record.schema, 1);
  const ComparisonRecord c = analyse(record, settings_of(record));
  EXPECT_EQ(c.method, kPairedMethod);
  EXPECT_EQ(c.verdict, Verdict::no_clear_difference) << c.summary;
  // By hand from the run medians (4 kept values each) of docs/validation/README.md.
  const double a[] = {471737, 508792, 415829, 501860, 451057};
  const double b[] = {516922, 500186, 562853, 541187, 510009};
  ASSERT_EQ(c.pairs.size(), 5u);
  double mean = 0, ss = 0;
  for (int i = 0; i < 5; ++i) mean += std::log(b[i] / a[i]) / 5;
  for (int i = 0; i < 5; ++i) ss += std::pow(std::log(b[i] / a[i]) - mean, 2);
  const double half = 2.776445 * std::sqrt(ss / 4 / 5);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(c.pairs[static_cast<std::size_t>(i)].a, a[i], 1) << i;
  ASSERT_TRUE(c.ci95_percent);
  EXPECT_NEAR(c.ci95_percent->first, std::expm1(mean - half) * 100, 0.01);
  EXPECT_NEAR(c.ci95_percent->second, std::expm1(mean + half) * 100, 0.01);
  EXPECT_LT(c.ci95_percent->first, 0);
  // The unpaired figure is kept, and it is the one that called a difference.
  ASSERT_TRUE(c.unpaired);
  EXPECT_GT(c.unpaired->ci95_percent.first, 0);
}

TEST(BenchAnalysis, TheH200PairedRunsSayWhatTheyShould) {
  const auto aa = read_record(kValidation / "nvidia-h200-bench-paired-aa.json");
  EXPECT_EQ(aa.comparison.verdict, Verdict::no_clear_difference);
  EXPECT_EQ(aa.order, "ABBABAABABBABAAB");
  const auto blocking = read_record(kValidation / "nvidia-h200-bench-paired-launch-blocking.json");
  EXPECT_EQ(blocking.comparison.verdict, Verdict::a_better);  // B, with CUDA_LAUNCH_BLOCKING=1, slower
  const auto delay = read_record(kValidation / "nvidia-h200-bench-paired-delay.json");
  EXPECT_EQ(delay.comparison.verdict, Verdict::a_better);  // wall time, B started 0.151 s later
  ASSERT_TRUE(delay.comparison.ci95_percent);
  // The known size: 0.1509 s over A's median run of 2.994 s is 5.0%, inside the interval.
  EXPECT_LT(delay.comparison.ci95_percent->first, 5.04);
  EXPECT_GT(delay.comparison.ci95_percent->second, 5.04);
}

TEST(BenchAnalysis, RecomputedFilesMatchTheirRecords) {
  // docs/validation/*-recomputed.json: `zcuda --json bench --from-record` of a committed record.
  for (const auto& entry : fs::directory_iterator(kValidation)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("-recomputed.json")) continue;
    auto text = platform::read_file(entry.path());
    ASSERT_TRUE(text);
    const auto recomputed = nlohmann::json::parse(*text);
    const fs::path original = kValidation / fs::path(recomputed.at("record").get<std::string>()).filename();
    BenchRecord record = read_record(original);
    BenchRecord stored = record;
    stored.comparison = analyse(record, settings_of(record));
    auto reread = bench_record_from_json([&] {
      auto j = to_json(record);
      j["schema"] = kRecordSchema;
      j["order"] = record.order;
      j["comparison"] = recomputed.at("recomputed");
      return j;
    }());
    ASSERT_TRUE(reread) << name;
    expect_same_comparison(reread->comparison, stored.comparison, name);
  }
}

}  // namespace
}  // namespace zcuda::bench
