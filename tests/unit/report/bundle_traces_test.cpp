// report --bundle with the traces of a `zcuda run --trace`: real trace files on disk, the zip
// read back. Text is redacted as the rest of the report is; binary files, files past the size
// bound and files removed since the run are left out and traces/manifest.json says why.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/launch/run_record.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/report/report.hpp>

#include "support/archive_builder.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::report {
namespace {

namespace fs = std::filesystem;

class BundleTracesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform::SystemInfo info;
    info.user_name = "svc";
    info.home_folder = "/var/lib/svc";
    redactor = std::make_unique<Redactor>(Redactor::for_machine(info, {}));
    folder = tmp / "traces" / "run-1";
  }
  // A traced run whose record names `files` (under its trace folder).
  launch::RunRecord traced_run(const std::vector<std::string>& files, const std::string& started = "2026-12-04T05:00:00Z") {
    launch::RunRecord r;
    r.started_utc = started;
    r.program = "/opt/app/app";
    r.traces = launch::RecordedTraces{zcuda::path_to_utf8(folder), {}};
    for (const auto& f : files) r.traces->files.push_back(zcuda::path_to_utf8(folder / zcuda::path_from_utf8(f)));
    return r;
  }
  std::map<std::string, std::string> bundle(const BundleTraces& traces) {
    const fs::path zip = tmp / "bundle.zip";
    auto written = write_bundle(zip, nlohmann::json{{"schema", 1}}, "# report\n", tmp / "no-logs", *redactor, traces);
    EXPECT_TRUE(written) << written.error().message;
    return test::read_zip(zip);
  }
  test::TempDir tmp;
  fs::path folder;
  std::unique_ptr<Redactor> redactor;
};

TEST_F(BundleTracesTest, TextTracesAreRedactedBinaryAndMissingOnesAreSaid) {
  test::write_file(folder / "app" / "log.txt", "cuModuleLoad(\"/home/someone/models/k.cubin\") -> CUDA_SUCCESS\n");
  test::write_file(folder / "app" / "module_0001.ptx", ".version 8.0 // C:\\Users\\someone\\src\\k.cu\n");
  test::write_file(folder / "app" / "module_0002.elf", std::string("\x7f"
                                                                   "ELF\0\0/home/someone/k",
                                                                   21));
  const auto traces = gather_traces({traced_run({"app/module_0001.ptx", "app/log.txt", "app/module_0002.elf", "app/gone.txt"})}, *redactor);
  ASSERT_TRUE(traces.run_started_utc);
  ASSERT_EQ(traces.files.size(), 4u);
  EXPECT_EQ(traces.files[0].entry, "traces/app/log.txt");  // zluda_trace's own log first
  const auto zip = bundle(traces);
  ASSERT_TRUE(zip.contains("traces/app/log.txt"));
  ASSERT_TRUE(zip.contains("traces/app/module_0001.ptx"));
  EXPECT_EQ(zip.at("traces/app/log.txt"), "cuModuleLoad(\"<home>/models/k.cubin\") -> CUDA_SUCCESS\n");
  EXPECT_EQ(zip.at("traces/app/module_0001.ptx"), ".version 8.0 // <home>\\src\\k.cu\n");
  EXPECT_FALSE(zip.contains("traces/app/module_0002.elf"));
  EXPECT_FALSE(zip.contains("traces/app/gone.txt"));
  for (const auto& [name, content] : zip) EXPECT_EQ(content.find("someone"), std::string::npos) << name;
  ASSERT_TRUE(zip.contains("traces/manifest.json"));
  const auto manifest = nlohmann::json::parse(zip.at("traces/manifest.json"));
  EXPECT_EQ(manifest.at("run_started_utc"), "2026-12-04T05:00:00Z");
  std::map<std::string, std::string> left_out;
  for (const auto& f : manifest.at("files")) {
    if (!f.at("left_out").is_null()) left_out[zcuda::path_from_utf8(f.at("source").get<std::string>()).filename().string()] = f.at("left_out");
  }
  ASSERT_EQ(left_out.size(), 2u);
  EXPECT_NE(left_out["module_0002.elf"].find("binary"), std::string::npos);
  EXPECT_NE(left_out["gone.txt"].find("missing"), std::string::npos);
}

TEST_F(BundleTracesTest, TheSizeBoundLeavesOutWhatDoesNotFitAndSaysSo) {
  test::write_file(folder / "app" / "log.txt", std::string(600, 'a'));
  test::write_file(folder / "app" / "big.ptx", std::string(500, 'b'));
  test::write_file(folder / "app" / "small.ptx", std::string(300, 'c'));
  const auto traces = gather_traces({traced_run({"app/big.ptx", "app/log.txt", "app/small.ptx"})}, *redactor, 1000);
  const auto zip = bundle(traces);
  std::size_t taken = 0;
  for (const auto& [name, content] : zip) {
    if (name.starts_with("traces/") && name != "traces/manifest.json") taken += content.size();
  }
  EXPECT_LE(taken, 1000u);
  EXPECT_TRUE(zip.contains("traces/app/log.txt"));
  EXPECT_FALSE(zip.contains("traces/app/big.ptx"));
  EXPECT_TRUE(zip.contains("traces/app/small.ptx"));
  const auto manifest = nlohmann::json::parse(zip.at("traces/manifest.json"));
  EXPECT_EQ(manifest.at("max_bytes"), 1000);
  bool said = false;
  for (const auto& f : manifest.at("files")) {
    if (f.at("source").get<std::string>().ends_with("big.ptx")) said = f.at("left_out").get<std::string>().find("size bound") != std::string::npos;
  }
  EXPECT_TRUE(said) << manifest.dump(2);
}

TEST_F(BundleTracesTest, TheNewestTracedRunIsTakenAndNoTracedRunMeansNoTracesFolder) {
  test::write_file(folder / "app" / "log.txt", "newest traced\n");
  launch::RunRecord untraced;
  untraced.started_utc = "2026-12-04T06:00:00Z";
  launch::RunRecord older = traced_run({"app/log.txt"}, "2026-12-03T05:00:00Z");
  const auto traces = gather_traces({untraced, traced_run({"app/log.txt"}), older}, *redactor);
  EXPECT_EQ(traces.run_started_utc, "2026-12-04T05:00:00Z");
  const auto none = gather_traces({untraced}, *redactor);
  EXPECT_FALSE(none.run_started_utc);
  const auto zip = bundle(none);
  for (const auto& [name, content] : zip) EXPECT_FALSE(name.starts_with("traces/")) << name;
  EXPECT_TRUE(zip.contains("report.json"));
  // The whole trace folder gone since the run: said, not an error.
  fs::remove_all(folder);
  const auto gone = gather_traces({traced_run({"app/log.txt"})}, *redactor);
  ASSERT_EQ(gone.files.size(), 1u);
  EXPECT_NE(gone.files[0].left_out.find("missing"), std::string::npos);
  EXPECT_TRUE(bundle(gone).contains("traces/manifest.json"));
}

}  // namespace
}  // namespace zcuda::report
