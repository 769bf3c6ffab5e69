// Records one module writes and `zcuda report` reads: each is read back exactly as its writer
// wrote it, through the one JSON form the writer's module owns, and the report shows it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/apps/check.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/report/report.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/temp_dir.hpp"

namespace zcuda {
namespace {

namespace fs = std::filesystem;

class Records : public ::testing::Test {
 protected:
  test::TempDir dir;
  home::Home home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};

  nlohmann::json collect() {
    report::CollectOptions options;
    options.home = home;
    options.redact = false;
    auto collected = report::collect(options);
    EXPECT_TRUE(collected) << collected.error().message;
    return collected ? *collected : nlohmann::json::object();
  }
};

launch::RunRecord sample_run() {
  launch::RunRecord r;
  r.started_utc = "2026-12-02T11:54:03Z";
  r.seconds = 2.5;
  r.exit_code = 3;
  r.signal = 15;
  r.program = "/opt/app/tr\xc3\xa4in";
  r.arg_count = 2;
  r.runtime_dir = "/opt/zluda";
  r.runtime_chosen_by = "--runtime-dir";
  r.runtime_version = "v6-preview.69";
  r.zcuda_version = "0.1.0";
  r.staged = true;
  r.environment = {{"ZLUDA_CC", "8.6"}, {"LD_LIBRARY_PATH", "/opt/zluda:/usr/lib"}};
  r.explained = launch::ExplainedFailure{"no-gpu-visible", "The program sees no GPU"};
  return r;
}

TEST_F(Records, RunRecordReadsBackExactlyAndTheReportSaysWhenTheRunHappened) {
  const auto written = sample_run();
  auto file = launch::write_run_record(home, written);
  ASSERT_TRUE(file) << file.error().message;
  auto read = launch::read_run_record(*file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, written);

  auto report = collect();
  ASSERT_EQ(report["runs"].size(), 1u);
  EXPECT_EQ(report["runs"][0], nlohmann::json(written));
  auto from_report = parse_record<launch::RunRecord>(report["runs"][0], "run record");
  ASSERT_TRUE(from_report) << from_report.error().message;
  EXPECT_EQ(*from_report, written);
  const std::string markdown = report::render_markdown(report);
  const auto runs = markdown.find("Recent runs");
  ASSERT_NE(runs, std::string::npos);
  EXPECT_NE(markdown.find("- 2026-12-02T11:54:03Z `/opt/app/tr\xc3\xa4in`: signal 15 after 2.5 s; known failure: The program sees no GPU "
                          "(`no-gpu-visible`)",
                          runs),
            std::string::npos)
      << markdown.substr(runs);
}

// Records written before run explained failures have no "explained" field.
TEST_F(Records, RunRecordsWithoutAnExplanationAreStillRead) {
  nlohmann::json old = sample_run();
  old.erase("explained");
  auto read = parse_record<launch::RunRecord>(old, "run record");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->explained);
  EXPECT_EQ(nlohmann::json(*read)["explained"], nullptr);
}

// `run --trace` keeps its trace folder and files; records without them (older, or untraced) read.
TEST_F(Records, RunRecordsKeepTheirTracesAndRecordsWithoutThemAreStillRead) {
  auto traced = sample_run();
  traced.traces = launch::RecordedTraces{"/tmp/zluda", {"/tmp/zluda/app_1/log.txt", "/tmp/zluda/app_1/module_0001.ptx"}};
  auto file = launch::write_run_record(home, traced);
  ASSERT_TRUE(file) << file.error().message;
  auto read = launch::read_run_record(*file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, traced);
  EXPECT_EQ(nlohmann::json(*read)["traces"]["files"].size(), 2u);
  nlohmann::json old = sample_run();
  old.erase("traces");
  auto without = parse_record<launch::RunRecord>(old, "run record");
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_FALSE(without->traces);
  EXPECT_EQ(nlohmann::json(*without)["traces"], nullptr);
}

TEST_F(Records, RunRecordsOfTheFirstSchemaAreStillRead) {
  nlohmann::json old = sample_run();
  old["schema"] = 1;
  old["started"] = old["started_utc"];
  old.erase("started_utc");
  auto read = parse_record<launch::RunRecord>(old, "run record");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, sample_run());
  old["schema"] = 3;
  EXPECT_FALSE(parse_record<launch::RunRecord>(old, "run record"));
}

verify::Report sample_verify() {
  verify::Report r;
  r.started_utc = "2026-12-02T12:09:16Z";
  r.runtime = {verify::RuntimeKind::zluda, fs::path("/opt/zluda"), "v6-preview.69", "installed ZLUDA"};
  r.runtime_family = family::Identity{family::Family::upstream, "v6", {"nvcuda.dll is nvcuda.dll of upstream's release v6"}, false};
  r.launch_method = platform::LaunchMethod::library_path;
  r.probe = "/usr/bin/zcuda-probe";
  r.timeout = std::chrono::seconds(60);
  r.jobs = 4;
  r.explicit_selection = true;
  r.seconds = 2.6;
  verify::CheckResult pass;
  pass.name = "cublas.sgemm";
  pass.core = true;
  pass.status = verify::CheckStatus::pass;
  pass.detail = "relative L2 error 7.18e-08 (tolerance 1e-06)";
  pass.stack = "zluda";
  pass.device = "AMD Radeon RX 9060 XT [ZLUDA]";
  pass.libraries = {{"cublas", "libcublas.so.12", "/opt/zluda/libcublas.so.12", "/opt/zluda/libcublas.so", 12345,
                     "e2959ed17c8ddae6bf2bf76cf3a7348f577a2548754685d776389df2220e5d9a"},
                    {"driver", "libcuda.so.1", "/opt/zluda/libcuda.so.1", "/opt/zluda/libcuda.so.1", std::nullopt, ""}};
  pass.metrics = {{"rel_l2_error", 7.18e-08}};
  pass.error = nullptr;
  pass.seconds = 0.67;
  pass.exit = "exit code 0";
  verify::CheckResult crash;
  crash.name = "cufft.c2c";
  crash.status = verify::CheckStatus::crash;
  crash.detail = "the probe died";
  crash.error = {{"api", "cufftPlan1d"}, {"code", 5}, {"name", "CUFFT_INTERNAL_ERROR"}};
  crash.exit = "signal 11";
  crash.stderr_tail = "Segmentation fault\n";
  r.checks = {pass, crash};
  r.cuda_check = verify::CudaCheck{"/opt/zluda/cuda_check", "exit code 0", {"nvcuda    : OK"}};
  return r;
}

TEST_F(Records, VerifyResultsReadBackExactly) {
  const auto written = sample_verify();
  auto saved = verify::save(written, home);
  ASSERT_TRUE(saved) << saved.error().message;
  auto last = verify::load_last(home);
  ASSERT_TRUE(last) << last.error().message;
  ASSERT_TRUE(last->has_value());
  EXPECT_EQ(**last, written);

  auto report = collect();
  EXPECT_EQ(report["verify"], nlohmann::json(written));
  auto from_report = parse_record<verify::Report>(report["verify"], "verify result");
  ASSERT_TRUE(from_report) << from_report.error().message;
  EXPECT_EQ(*from_report, written);

  // Results saved before families were named have none.
  auto older = nlohmann::json(written);
  older.erase("runtime_family");
  auto read = parse_record<verify::Report>(older, "verify result");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->runtime_family);
}

// Statuses and the launch method are enums in memory and fixed words on disk; a word zcuda does
// not know is refused with the word named, not read as some other status.
TEST_F(Records, VerifyResultsStoreFixedWordsAndRefuseUnknownOnes) {
  const nlohmann::json written = sample_verify();
  EXPECT_EQ(written["checks"][0]["status"], "pass");
  EXPECT_EQ(written["checks"][1]["status"], "crash");
  EXPECT_EQ(written["runtime"]["launch"], "LD_LIBRARY_PATH");
  EXPECT_EQ(written["summary"]["statuses"], nlohmann::json::parse(R"({"crash": 1, "pass": 1})"));

  auto unknown_status = written;
  unknown_status["checks"][1]["status"] = "exploded";
  auto status_read = parse_record<verify::Report>(unknown_status, "verify result");
  ASSERT_FALSE(status_read);
  EXPECT_NE(status_read.error().message.find("'exploded'"), std::string::npos) << status_read.error().message;

  auto unknown_launch = written;
  unknown_launch["runtime"]["launch"] = "teleport";
  auto launch_read = parse_record<verify::Report>(unknown_launch, "verify result");
  ASSERT_FALSE(launch_read);
  EXPECT_NE(launch_read.error().message.find("'teleport'"), std::string::npos) << launch_read.error().message;
}

TEST_F(Records, NoVerifyResultsAndDamagedOnesAreToldApart) {
  auto none = verify::load_last(home);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  test::write_file(home.state / "verify" / "last.json", "{\"started_utc\": 3}");
  auto damaged = verify::load_last(home);
  ASSERT_FALSE(damaged);
  EXPECT_EQ(damaged.error().kind, ErrorKind::invalid_input);
  auto report = collect();
  EXPECT_TRUE(report["verify"].contains("error")) << report["verify"].dump();
  EXPECT_NE(report::render_markdown(report).find("could not be read"), std::string::npos);
}

TEST_F(Records, InstallReceiptReadsBackExactlyAndTheReportChecksItsFiles) {
  install::Receipt written;
  written.id = "zluda-v6-linux";
  written.component = "zluda";
  written.version = "v6";
  written.sha256 = "e2959ed17c8ddae6bf2bf76cf3a7348f577a2548754685d776389df2220e5d9a";
  written.archive = "tar.gz";
  written.root = "zluda";
  written.source = "https://example.invalid/zluda.tar.gz";
  written.installed_at = "2026-12-01T10:00:00Z";
  written.zcuda_version = "0.1.0";
  written.entry = {{"url", "https://example.invalid/zluda.tar.gz"}, {"sha256", written.sha256}};
  written.files = {{"lib", archive::WrittenEntry::Type::directory, 0, "", ""},
                   {"lib/libcuda.so.1", archive::WrittenEntry::Type::file, 5, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", ""},
                   {"lib/libcuda.so", archive::WrittenEntry::Type::symlink, 0, "", "libcuda.so.1"}};
  const fs::path component = home.installs() / "zluda";
  ASSERT_TRUE(install::write_receipt(component / "v6.receipt.json", written));
  auto read = install::read_receipt(home, "zluda", "v6");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, written);

  test::write_file(component / "current", "v6\n");
  test::write_file(component / "v6" / "lib" / "libcuda.so.1", "hello");  // the digest above is of "hello"
  auto report = collect();
  ASSERT_EQ(report["installs"].size(), 1u);
  const auto& c = report["installs"][0];
  EXPECT_EQ(c["integrity"], "ok") << c.dump();
  EXPECT_EQ(c["files_checked"], 1);
  EXPECT_EQ(c["artifact"]["id"], written.id);
  EXPECT_EQ(c["artifact"]["installed_at"], written.installed_at);
  EXPECT_EQ(c["artifact"]["url"], "https://example.invalid/zluda.tar.gz");

  test::write_file(component / "v6" / "lib" / "libcuda.so.1", "HELLO");
  EXPECT_EQ(collect()["installs"][0]["integrity"], "damaged");
}

// verify --app's records (apps::write_check), newest first with their key facts; only a passing
// check that ran the application counts as application verified.
TEST_F(Records, ApplicationChecksAppearWithTheirKindAndKeyFacts) {
  apps::CheckRecord fatbin;
  fatbin.check = apps::Check::fatbin;
  fatbin.profile = "llama-cpp";
  fatbin.app = "/opt/llama";
  fatbin.runtime = "native";
  fatbin.started_utc = "2026-12-05T08:00:00Z";
  fatbin.status = apps::CheckStatus::pass;
  fatbin.facts = {{"library", "/opt/llama/libggml-cuda.so"},
                  {"compute_capability", "8.5"},
                  {"ptx_used", "compute_75"},
                  {"images", 4},
                  {"targets", {{{"target", "compute_75"}, {"kind", "ptx"}}, {{"target", "sm_86"}, {"kind", "cubin"}}}}};
  ASSERT_TRUE(apps::write_check(home, fatbin));
  auto report = collect();
  ASSERT_EQ(report["app_checks"].size(), 1u);
  const auto& c = report["app_checks"][0];
  EXPECT_EQ(c["check"], "fatbin");
  EXPECT_EQ(c["status"], "pass");
  EXPECT_EQ(c["facts"]["ptx_used"], "compute_75");
  EXPECT_EQ(c["facts"]["targets"], nlohmann::json({"compute_75 (ptx)", "sm_86 (cubin)"}));
  EXPECT_FALSE(c["facts"].contains("images")) << "key facts only";
  EXPECT_EQ(report["application_verified"], false);

  apps::CheckRecord torch = fatbin;
  torch.check = apps::Check::torch;
  torch.profile = "pytorch";
  torch.started_utc = "2026-12-05T08:01:00Z";
  torch.facts = {{"torch", "2.7.1"}, {"cuda_available", true}, {"libraries", {"/x/libcuda.so.1"}}};
  ASSERT_TRUE(apps::write_check(home, torch));
  report = collect();
  ASSERT_EQ(report["app_checks"].size(), 2u);
  EXPECT_EQ(report["app_checks"][0]["check"], "torch");
  EXPECT_FALSE(report["app_checks"][0]["facts"].contains("libraries"));
  EXPECT_EQ(report["application_verified"], true);
  EXPECT_NE(report::render_markdown(report).find("| pytorch | torch | **pass** |"), std::string::npos);
}

}  // namespace
}  // namespace zcuda
