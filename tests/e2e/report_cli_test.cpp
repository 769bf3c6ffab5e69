// zcuda report through the real binary: planted secrets must not appear in any output or file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/archive_builder.hpp"
#include "support/file_url.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

const char* kSecrets[] = {"hunter2-secret", "ghp_plantedTokenPlantedToken1234567890", "leaky@example.org", "s3cr3t-proxy-pass", "sig-0123456789"};

CommandOptions planted_environment(const TempDir& home) {
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = home.path().string();
  o.set_env["ZLUDA_PROXY"] = "http://bob:s3cr3t-proxy-pass@proxy.local:3128";
  o.set_env["HIP_MIRROR"] = "https://mirror.local/z.zip?sig=sig-0123456789";
  o.set_env["TORCH_DB_PASSWORD"] = "hunter2-secret";
  o.set_env["ZLUDA_CONTACT"] = "leaky@example.org";
  o.set_env["GITHUB_TOKEN"] = "ghp_plantedTokenPlantedToken1234567890";  // not allowlisted at all
  return o;
}

void plant_files(const TempDir& home) {
  // A verify result (saved by verify itself) and a log line that carry secrets too.
  verify::Report result;
  result.started_utc = "2026-12-01T10:00:00Z";
  result.runtime = {verify::RuntimeKind::zluda, home / "installs" / "zluda" / "v6", "v6", "installed ZLUDA"};
  result.launch_method = platform::LaunchMethod::library_path;
  verify::CheckResult check;
  check.name = "driver.init";
  check.core = true;
  check.status = verify::CheckStatus::pass;
  check.detail = "token=hunter2-secret";
  check.stack = "zluda";
  check.device = "X [ZLUDA]";
  result.checks = {check};
  home::Home layout{home.path(), home / "cache", home / "state", home / "logs", home::ChosenBy::flag};
  ASSERT_TRUE(verify::save(result, layout));
  write_file(home / "logs" / "zcuda.log",
             "2026-12-01 debug: fetching https://u:s3cr3t-proxy-pass@host/x with ghp_plantedTokenPlantedToken1234567890\n");
}

void expect_clean(const std::string& text, const std::string& where) {
  for (const char* secret : kSecrets) EXPECT_EQ(text.find(secret), std::string::npos) << secret << " leaked into " << where;
}

TEST(ReportCli, MarkdownJsonFileAndBundleCarryNoSecrets) {
  TempDir home;
  plant_files(home);
  auto o = planted_environment(home);
  auto md = run_zcuda({"report", "--no-hash"}, o);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("## zcuda report", 0), 0u);
  EXPECT_NE(md.out.find("ZLUDA_PROXY=http://<redacted-credentials>@proxy.local:3128"), std::string::npos) << md.out;
  expect_clean(md.out + md.err, "markdown");

  auto js = run_zcuda({"--json", "report", "--no-hash"}, o);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  auto j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["schema"], 1);
  EXPECT_EQ(j["command"], "report");
  for (const char* key : {"zcuda", "system", "detect", "installs", "verify", "runs", "environment"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["verify"]["checks"][0]["detail"], "token=<redacted>");
  EXPECT_FALSE(j["environment"]["variables"].contains("GITHUB_TOKEN")) << "only allowlisted variables";
  expect_clean(js.out, "json");

  auto file = run_zcuda({"report", "--no-hash", "--output", (home / "out.md").string(), "--bundle", (home / "bundle.zip").string()}, o);
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_NE(file.out.find("Report written to"), std::string::npos);
  expect_clean(read_file(home / "out.md"), "out.md");
  const auto bundle = read_zip(home / "bundle.zip");
  std::string contents;
  for (const auto& [name, text] : bundle) contents += text;
  EXPECT_TRUE(bundle.contains("report.json"));
  EXPECT_TRUE(bundle.contains("report.md"));
  EXPECT_TRUE(bundle.contains("logs/zcuda.log"));
  EXPECT_NE(contents.find("<redacted-token>"), std::string::npos);
  expect_clean(contents, "bundle");
  EXPECT_FALSE(std::filesystem::exists(home / "bundle.zip.partial"));
}

// zcuda run --trace, then report --bundle: the trace a real child wrote (where ZLUDA_LOG_DIR
// says, as zluda_trace does) is in the bundle, with another user's home folder redacted.
TEST(ReportCli, ABundleTakesTheTracedRunsFilesRedacted) {
#ifdef _WIN32
  GTEST_SKIP()
      << "the child here is /bin/sh writing where Linux's ZLUDA_LOG_DIR says; on Windows unit_tests' TraceRun goes through a stand-in zluda.exe";
#else
  TempDir home;
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = home.path().string();
  std::filesystem::create_directories(home / "runtime" / "trace");
  auto run = run_zcuda({"run", "--runtime-dir", (home / "runtime").string(), "--no-stage", "--no-detect", "--trace", "/bin/sh", "-c",
                        "mkdir -p \"$ZLUDA_LOG_DIR/sh\" && echo 'cuModuleLoad(/home/someone/k.cubin)' > \"$ZLUDA_LOG_DIR/sh/log.txt\""},
                       o);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto r = run_zcuda({"report", "--no-hash", "--bundle", (home / "bundle.zip").string()}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("It holds 1 trace file(s)"), std::string::npos) << r.out;
  const auto bundle = read_zip(home / "bundle.zip");
  ASSERT_TRUE(bundle.contains("traces/sh/log.txt"));
  EXPECT_EQ(bundle.at("traces/sh/log.txt"), "cuModuleLoad(<home>/k.cubin)\n");
  ASSERT_TRUE(bundle.contains("traces/manifest.json"));
  for (const auto& [name, text] : bundle) EXPECT_EQ(text.find("someone"), std::string::npos) << name;
#endif
}

TEST(ReportCli, NoRedactIsExplicit) {
  TempDir home;
  auto o = planted_environment(home);
  auto r = run_zcuda({"report", "--no-hash", "--no-redact"}, o);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("hunter2-secret"), std::string::npos);
  EXPECT_NE(r.out.find("Not redacted"), std::string::npos);
}

TEST(ReportCli, WorksOnAnEmptyHome) {
  TempDir home;
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = home.path().string();
  auto r = run_zcuda({"report", "--no-hash"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("has not been run"), std::string::npos);
  EXPECT_NE(r.out.find("nothing installed by zcuda"), std::string::npos);
}

TEST(ReportCli, InstalledComponentsAreCheckedAgainstTheirReceipts) {
  TempDir dir;
  write_archive(dir / "z.zip", ArchiveType::zip,
                {test::dir("zluda/"), test::file("zluda/nvcuda.dll", "NVCUDA-TEST"), test::file("zluda/zluda.exe", "LAUNCHER")});
  auto digest = sha256_file(dir / "z.zip");
  ASSERT_TRUE(digest);
  nlohmann::json entry = {{"id", "zluda-test"},
                          {"component", "zluda"},
                          {"version", "v1"},
                          {"os", "any"},
                          {"url", test::file_url(dir / "z.zip")},
                          {"mirrors", nlohmann::json::array()},
                          {"sha256", *digest},
                          {"archive", "zip"},
                          {"root", "zluda"},
                          {"optional", false},
                          {"license", "test"}};
  write_file(dir / "m.json", nlohmann::json{{"schema", 1}, {"artifacts", {entry}}}.dump());
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = (dir / "home").string();
  auto installed = run_zcuda({"install", "--manifest", (dir / "m.json").string()}, o);
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;

  auto r = run_zcuda({"--json", "report"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto installs = nlohmann::json::parse(r.out)["installs"];
  ASSERT_EQ(installs.size(), 1u) << installs.dump();
  EXPECT_EQ(installs[0]["component"], "zluda");
  EXPECT_EQ(installs[0]["current"], "v1");
  EXPECT_EQ(installs[0]["integrity"], "ok");
  EXPECT_EQ(installs[0]["files_checked"], 2);
  EXPECT_EQ(installs[0]["artifact"]["sha256"], *digest);

  // Same size, other bytes: only re-hashing sees it.
  write_file(dir / "home" / "installs" / "zluda" / "v1" / "zluda.exe", "LAUNCHEX");
  auto damaged = nlohmann::json::parse(run_zcuda({"--json", "report"}, o).out)["installs"][0];
  EXPECT_EQ(damaged["integrity"], "damaged");
  EXPECT_EQ(damaged["files_changed"], 1);
  EXPECT_EQ(damaged["problems"][0]["path"], "zluda.exe");
  auto by_size = nlohmann::json::parse(run_zcuda({"--json", "report", "--no-hash"}, o).out)["installs"][0];
  EXPECT_EQ(by_size["integrity"], "ok") << "--no-hash checks sizes only";
}

// The installed ZLUDA's entry names its family (zluda_ld: a name only upstream ships).
TEST(ReportCli, TheInstalledRuntimesFamilyIsNamed) {
  TempDir home;
  const auto version = home / "installs" / "zluda" / "v1";
  for (const char* name : {"libcuda.so.1", "nvcuda.dll", "zluda_ld"}) write_file(version / name, "stand-in");
  write_file(home / "installs" / "zluda" / "current", "v1\n");
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = home.path().string();
  auto r = run_zcuda({"--json", "report"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto installs = nlohmann::json::parse(r.out)["installs"];
  ASSERT_EQ(installs.size(), 1u) << installs.dump();
  EXPECT_EQ(installs[0]["runtime_family"]["family"], "upstream") << installs.dump();
  auto markdown = run_zcuda({"report"}, o);
  EXPECT_NE(markdown.out.find("zluda v1: integrity no receipt, upstream family"), std::string::npos) << markdown.out;
}

TEST(ReportCli, MergeBuildsAMatrix) {
  std::string dir = std::string(ZCUDA_FIXTURES_DIR) + "/report/";
  auto r = run_zcuda({"report", "merge", dir + "report-a.json", dir + "report-b.json", dir + "report-c.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## zcuda compatibility matrix (3 reports)"), std::string::npos);
  EXPECT_NE(r.out.find("⚠"), std::string::npos);
  auto j = run_zcuda({"report", "merge", "--json", dir + "report-a.json", dir + "report-b.json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["ready_to_validate"][0]["gfx"], "gfx1201");
  auto bad = run_zcuda({"report", "merge", "/nonexistent/report.json"});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace zcuda::test
