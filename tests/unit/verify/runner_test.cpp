// The verify runner's pieces that need no GPU: the check table, reading probe output, the exit
// rule, choosing the runtime, digests, the launch plan.
#include <gtest/gtest.h>

#include <zcuda/fetch/fetch.hpp>

#include <nlohmann/json.hpp>

#include <zcuda/platform/runtime_launch.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/temp_dir.hpp"
#include "support/test_child.hpp"

namespace zcuda::verify {
namespace {

using test::TempDir;
using test::write_file;

const CheckSpec& spec(const char* name) { return *find_check(name); }

CheckResult result(const char* name, bool core, const char* status) {
  CheckResult r;
  r.name = name;
  r.core = core;
  r.status = status;
  return r;
}

platform::ProcessResult finished(std::string out, int code = 0) {
  platform::ProcessResult r;
  r.exit_code = code;
  r.out = std::move(out);
  r.seconds = 0.5;
  return r;
}

constexpr const char* kPassLine =
    R"({"probe_schema":1,"check":"cublas.sgemm","status":"pass","detail":"ok","stack":"nvidia","device":"NVIDIA H200","seconds":0.4,)"
    R"("libraries":[{"role":"cublas","requested":"libcublas.so.13","path":"/x/libcublas.so.13","real_path":"/x/libcublas.so.13.1","size":123}],)"
    R"("metrics":{"rel_l2_error":7e-8}})";

TEST(VerifyChecks, TableMatchesTheProbe) {
  platform::ProcessSpec s;
  s.program = ZCUDA_PROBE_BIN;
  s.args = {"--list"};
  s.streams = platform::StreamMode::capture;
  auto done = platform::run_process(s);
  ASSERT_TRUE(done) << done.error().message;
  ASSERT_EQ(done->exit_code, 0);
  const auto listed = nlohmann::json::parse(done->out)["checks"];
  ASSERT_EQ(listed.size(), checks().size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i]["name"], checks()[i].name);
    EXPECT_EQ(listed[i]["core"], checks()[i].core) << checks()[i].name;
    const bool core_family = checks()[i].name.starts_with("driver.") || checks()[i].name.starts_with("cublas") ||
                             checks()[i].name.starts_with("cusparse.");
    EXPECT_EQ(checks()[i].core, core_family) << "core = driver.*, cublas.*, cublaslt.*, cusparse.*";
  }
}

TEST(VerifyInterpret, ReadsAProbeResult) {
  const auto r = interpret(spec("cublas.sgemm"), finished(std::string("library noise\n") + kPassLine + "\n"), std::chrono::seconds(60));
  EXPECT_EQ(r.status, "pass");
  EXPECT_EQ(r.stack, "nvidia");
  EXPECT_EQ(r.device, "NVIDIA H200");
  ASSERT_EQ(r.libraries.size(), 1u);
  EXPECT_EQ(r.libraries[0].real_path, "/x/libcublas.so.13.1");
  EXPECT_EQ(r.libraries[0].size, 123u);
  EXPECT_DOUBLE_EQ(r.metrics["rel_l2_error"].get<double>(), 7e-8);
  EXPECT_TRUE(r.stderr_tail.empty());
}

TEST(VerifyInterpret, TimeoutOutranksAPrintedResult) {
  auto p = finished(kPassLine);
  p.timed_out = true;
  const auto r = interpret(spec("cublas.sgemm"), p, std::chrono::seconds(7));
  EXPECT_EQ(r.status, "timeout");
  EXPECT_NE(r.detail.find("7 s"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("had reported pass"), std::string::npos) << r.detail;
}

TEST(VerifyInterpret, SignalIsACrash) {
  auto p = finished("", 139);
  p.signal = 11;
  p.err = "Segmentation fault";
  const auto r = interpret(spec("driver.init"), p, std::chrono::seconds(60));
  EXPECT_EQ(r.status, "crash");
  EXPECT_NE(r.detail.find("11"), std::string::npos) << r.detail;
  EXPECT_EQ(r.stderr_tail, "Segmentation fault");
}

TEST(VerifyInterpret, WindowsExceptionIsACrash) {
  auto p = finished("", static_cast<int>(0xC0000005u));
  p.exception_status = 0xC0000005u;
  EXPECT_EQ(interpret(spec("driver.init"), p, std::chrono::seconds(60)).status, "crash");
}

TEST(VerifyInterpret, NoResultIsACrashOrAnError) {
  EXPECT_EQ(interpret(spec("driver.init"), finished("", 1), std::chrono::seconds(60)).status, "crash");
  EXPECT_EQ(interpret(spec("driver.init"), finished("not json\n", 0), std::chrono::seconds(60)).status, "error");
  // A result for another check is not this check's result.
  EXPECT_EQ(interpret(spec("driver.init"), finished(kPassLine, 0), std::chrono::seconds(60)).status, "error");
}

TEST(VerifyInterpret, UnknownStatusBecomesError) {
  const auto r = interpret(spec("driver.init"), finished(R"({"check":"driver.init","status":"great","detail":"x"})"),
                           std::chrono::seconds(60));
  EXPECT_EQ(r.status, "error");
}

TEST(VerifyReport, CoreChecksDecideUnlessSelectedExplicitly) {
  Report report;
  report.checks = {result("driver.init", true, "pass"), result("cufft.c2c", false, "unsupported")};
  EXPECT_TRUE(report.passed()) << "a non-core check does not fail the run";
  report.explicit_selection = true;
  EXPECT_FALSE(report.passed()) << "with --check every selected check counts";
  report.explicit_selection = false;
  report.checks[0].status = "timeout";
  EXPECT_FALSE(report.passed());
  const nlohmann::json json = report;
  EXPECT_EQ(json["checks"][0]["status"], "timeout");
  EXPECT_EQ(json["summary"]["passed"], false);
  EXPECT_EQ(json["summary"].value("others", nlohmann::json::object()).value("unsupported", 0), 1);
}

// The summary counts the checks it says it counts: the core checks (or, with --check, the
// selected ones) in `statuses`, the rest apart in `others`.
TEST(VerifyReport, SummaryCountsWhatItSays) {
  Report report;
  report.checks = {result("driver.init", true, "pass"), result("cublas.sgemm", true, "fail"), result("cufft.c2c", false, "pass"),
                   result("nvml.init", false, "unsupported")};
  nlohmann::json json = report;
  EXPECT_EQ(json["summary"], nlohmann::json::parse(R"({"counted": "core checks", "passed": false, "statuses": {"fail": 1, "pass": 1},
                                                       "others": {"pass": 1, "unsupported": 1}})"));
  report.explicit_selection = true;
  json = report;
  EXPECT_EQ(json["summary"], nlohmann::json::parse(R"({"counted": "selected checks", "passed": false,
                                                       "statuses": {"fail": 1, "pass": 2, "unsupported": 1}, "others": {}})"));
}

TEST(VerifyReport, SavesLastAndATimestampedCopy) {
  TempDir dir;
  app::Home home{dir.path(), dir / "cache", dir / "state", dir / "logs", "test"};
  Report report;
  report.started_utc = "2026-12-02T11:54:03Z";
  report.checks = {result("driver.init", true, "pass")};
  auto saved = save(report, home);
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(saved->filename(), "verify-20261202T115403Z.json");
  const auto last = nlohmann::json::parse(test::read_file(dir / "state" / "verify" / "last.json"));
  EXPECT_EQ(last["checks"][0]["name"], "driver.init");
  EXPECT_EQ(test::read_file(*saved), test::read_file(dir / "state" / "verify" / "last.json"));
}

class VerifyRuntime : public ::testing::Test {
 protected:
  TempDir dir;
  app::Home home{dir.path(), dir / "cache", dir / "state", dir / "logs", "test"};
};

TEST_F(VerifyRuntime, NativeWhenNothingIsInstalled) {
  auto r = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, "native");
  EXPECT_FALSE(r->dir);
  auto z = resolve_runtime(std::nullopt, "zluda", home);
  ASSERT_FALSE(z);
  EXPECT_EQ(z.error().kind, ErrorKind::not_found);
}

TEST_F(VerifyRuntime, InstalledZludaIsTheDefault) {
  write_file(dir / "installs" / "zluda" / "current", "v6-preview.69\n");
  write_file(dir / "installs" / "zluda" / "v6-preview.69" / "libcuda.so.1", "");
  auto r = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->kind, "zluda");
  EXPECT_EQ(r->version, "v6-preview.69");
  EXPECT_EQ(*r->dir, dir / "installs" / "zluda" / "v6-preview.69");
  auto native = resolve_runtime(std::nullopt, "native", home);
  ASSERT_TRUE(native);
  EXPECT_EQ(native->kind, "native") << "--runtime native overrides the installed ZLUDA";
}

TEST_F(VerifyRuntime, ArchiveLayoutWithAZludaSubfolder) {
  write_file(dir / "installs" / "zluda" / "current", "v6");
  write_file(dir / "installs" / "zluda" / "v6" / "zluda" / "libcuda.so.1", "");
  auto r = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r->dir, dir / "installs" / "zluda" / "v6" / "zluda");
}

TEST_F(VerifyRuntime, BrokenPointerIsAnErrorNotASilentFallback) {
  write_file(dir / "installs" / "zluda" / "current", "v9");
  auto missing = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
  EXPECT_FALSE(missing.error().hint.empty());
  write_file(dir / "installs" / "zluda" / "current", "../../etc");
  auto hostile = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_FALSE(hostile);
  EXPECT_EQ(hostile.error().kind, ErrorKind::invalid_input);
}

TEST_F(VerifyRuntime, RuntimeDirMustExist) {
  auto r = resolve_runtime(dir / "nope", "auto", home);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
  auto ok = resolve_runtime(dir.path(), "auto", home);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->kind, "dir");
}

TEST(VerifyDigest, Sha256OfKnownContent) {
  TempDir dir;
  write_file(dir / "abc", "abc");
  write_file(dir / "empty", "");
  EXPECT_EQ(fetch::sha256_file(dir / "abc").value(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(fetch::sha256_file(dir / "empty").value(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  auto missing = fetch::sha256_file(dir / "missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
}

// How verify (and cuda_check) start a program with a runtime folder first. Linux: the folder
// leads LD_LIBRARY_PATH. Windows: the program is copied beside the folder's DLLs (the application
// folder is searched first), with the folder first on PATH; or ZLUDA's zluda.exe starts it.
TEST(VerifyLaunch, RuntimeFolderGoesFirst) {
  TempDir dir;
  const auto child = test::test_child();
#ifdef _WIN32
  test::write_file(dir / "nvcuda.dll", "the runtime's driver");
  auto launch = platform::RuntimeLaunch::prepare(child, dir.path());
  ASSERT_TRUE(launch) << launch.error().message;
  EXPECT_EQ(launch->method(), "copy beside DLLs");
  auto s = launch->spec({"env", "PATH", "out", "|", "cwd"});
  const auto copy = s.program;
  EXPECT_NE(copy.parent_path(), child.parent_path());
  EXPECT_EQ(test::read_file(copy.parent_path() / "nvcuda.dll"), "the runtime's driver");
  s.working_dir = copy.parent_path();
  s.streams = platform::StreamMode::capture;
  auto done = platform::run_process(s);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->out.rfind(dir.path().string() + ";", 0), 0u) << done->out;
  launch = platform::RuntimeLaunch::prepare(child, std::nullopt);  // the copy goes with the old one
  EXPECT_FALSE(std::filesystem::exists(copy.parent_path())) << "the temporary folder is removed";

  test::write_file(dir / "zluda.exe", "ZLUDA's launcher");
  auto through = platform::RuntimeLaunch::prepare(child, dir.path());
  ASSERT_TRUE(through);
  EXPECT_EQ(through->method(), "zluda.exe");
  const auto via = through->spec({"x"});
  EXPECT_EQ(via.program, dir / "zluda.exe");
  EXPECT_EQ(via.args, (std::vector<std::string>{"--", child.string(), "x"}));
#else
  auto launch = platform::RuntimeLaunch::prepare(child, dir.path());
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->method(), "LD_LIBRARY_PATH");
  auto s = launch->spec({"env", "LD_LIBRARY_PATH"});
  s.streams = platform::StreamMode::capture;
  auto done = platform::run_process(s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->out.rfind(dir.path().string(), 0), 0u) << done->out;
#endif
  auto system = platform::RuntimeLaunch::prepare(child, std::nullopt);
  ASSERT_TRUE(system);
  EXPECT_EQ(system->method(), "system");
}

TEST(VerifyLaunch, CurrentExecutableIsThisTest) {
  auto self = platform::current_executable();
  ASSERT_TRUE(self);
#ifdef _WIN32
  EXPECT_EQ(self->filename(), "verify_tests.exe");
#else
  EXPECT_EQ(self->filename(), "verify_tests");
#endif
}

}  // namespace
}  // namespace zcuda::verify
