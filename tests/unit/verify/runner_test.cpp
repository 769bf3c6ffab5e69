// The verify runner's pieces that need no GPU: the check table, reading probe output, the exit
// rule, choosing the runtime, digests, the launch plan.
#include <gtest/gtest.h>

#include <algorithm>

#include <zcuda/base/sha256.hpp>
#include <zcuda/fetch/fetch.hpp>

#include <nlohmann/json.hpp>

#include <zcuda/platform/runtime_launch.hpp>
#include <zcuda/verify/verify.hpp>

#include "support/temp_dir.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::verify {
namespace {

using test::TempDir;
using test::write_file;

const CheckSpec& spec(const char* name) { return *find_check(name); }

CheckResult result(const char* name, bool core, CheckStatus status) {
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
    EXPECT_EQ(listed[i]["group"], checks()[i].group) << checks()[i].name;
    EXPECT_EQ(listed[i]["exclusive"], checks()[i].exclusive) << checks()[i].name;
  }
}

TEST(VerifyChecks, CoreIsWhatEveryCudaProgramNeeds) {
  // docs/verify.md: the driver, cuBLAS, cuBLASLt and cuSPARSE basics; the application-specific
  // checks are shown and ranked by the ladder's "functional" only through these.
  std::vector<std::string> core;
  for (const auto& c : checks()) {
    if (c.core) core.push_back(c.name);
  }
  EXPECT_EQ(core, (std::vector<std::string>{"driver.init", "driver.memory", "driver.kernel", "driver.stream", "cublas.sgemm", "cublas.gemm_ex_f16",
                                            "cublaslt.matmul", "cusparse.spmv_csr", "cusparse.spmm_coo"}));
}

TEST(VerifySchedule, MatchesTheProbesPlan) {
  platform::ProcessSpec s;
  s.program = ZCUDA_PROBE_BIN;
  s.args = {"--plan"};
  s.streams = platform::StreamMode::capture;
  auto done = platform::run_process(s);
  ASSERT_TRUE(done) << done.error().message;
  std::vector<const CheckSpec*> all;
  for (const auto& c : checks()) all.push_back(&c);
  std::string plan;
  for (const auto& unit : schedule(all)) {
    plan += unit.exclusive ? "exclusive" : "shared";
    for (const auto* c : unit.checks) plan += " " + c->name;
    plan += "\n";
  }
  std::string probe = done->out;
  probe.erase(std::remove(probe.begin(), probe.end(), '\r'), probe.end());
  EXPECT_EQ(plan, probe);
}

TEST(VerifySchedule, ExclusiveFirstThenGroupsLargestFirst) {
  std::vector<const CheckSpec*> some{
      &spec("driver.init"),  &spec("driver.memory"), &spec("nvml.init"), &spec("cudnn.conv_forward"), &spec("cudnn.conv_backward_data"),
      &spec("driver.kernel")};
  const auto units = schedule(some);
  ASSERT_EQ(units.size(), 4u);
  EXPECT_TRUE(units[0].exclusive);
  EXPECT_EQ(units[0].checks[0]->name, "driver.memory");
  EXPECT_EQ(units[1].checks.size(), 2u);  // driver.init with driver.kernel (table order), then the cuDNN pair
  EXPECT_EQ(units[1].checks[0]->name, "driver.init");
  EXPECT_EQ(units[1].checks[1]->name, "driver.kernel");
  EXPECT_EQ(units[2].checks[0]->name, "cudnn.conv_forward");
  EXPECT_EQ(units[3].checks[0]->name, "nvml.init");
}

// The words are the probe's protocol and the saved results' format: fixed, and each read back.
TEST(VerifyWords, StatusesAndLaunchMethodsRoundTrip) {
  for (auto status : {CheckStatus::pass, CheckStatus::fail, CheckStatus::unsupported, CheckStatus::missing, CheckStatus::error, CheckStatus::crash,
                      CheckStatus::timeout}) {
    EXPECT_EQ(check_status_from(to_string(status)), status) << to_string(status);
  }
  EXPECT_EQ(check_status_from("passed"), std::nullopt);
  using platform::LaunchMethod;
  for (auto method : {LaunchMethod::system, LaunchMethod::library_path, LaunchMethod::copy_beside_dlls, LaunchMethod::zluda_exe}) {
    EXPECT_EQ(platform::launch_method_from(to_string(method)), method) << to_string(method);
  }
  EXPECT_EQ(to_string(LaunchMethod::copy_beside_dlls), "copy beside DLLs");
  EXPECT_EQ(platform::launch_method_from("PATH"), std::nullopt);
}

// A probe that prints crash or timeout itself is confused: those are zcuda's to say.
TEST(VerifyInterpret, AProbeCannotReportACrashOrTimeoutOfItsOwn) {
  const auto r = interpret(spec("driver.init"), finished(R"({"check":"driver.init","status":"timeout","detail":"x"})"), std::chrono::seconds(60));
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("unknown status 'timeout'"), std::string::npos) << r.detail;
}

TEST(VerifyInterpret, ReadsAProbeResult) {
  const auto r = interpret(spec("cublas.sgemm"), finished(std::string("library noise\n") + kPassLine + "\n"), std::chrono::seconds(60));
  EXPECT_EQ(r.status, CheckStatus::pass);
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
  EXPECT_EQ(r.status, CheckStatus::timeout);
  EXPECT_NE(r.detail.find("7 s"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("had reported pass"), std::string::npos) << r.detail;
}

TEST(VerifyInterpret, SignalIsACrash) {
  auto p = finished("", 139);
  p.signal = 11;
  p.err = "Segmentation fault";
  const auto r = interpret(spec("driver.init"), p, std::chrono::seconds(60));
  EXPECT_EQ(r.status, CheckStatus::crash);
  EXPECT_NE(r.detail.find("11"), std::string::npos) << r.detail;
  EXPECT_EQ(r.stderr_tail, "Segmentation fault");
}

TEST(VerifyInterpret, WindowsExceptionIsACrash) {
  auto p = finished("", static_cast<int>(0xC0000005u));
  p.exception_status = 0xC0000005u;
  EXPECT_EQ(interpret(spec("driver.init"), p, std::chrono::seconds(60)).status, CheckStatus::crash);
}

TEST(VerifyInterpret, NoResultIsACrashOrAnError) {
  EXPECT_EQ(interpret(spec("driver.init"), finished("", 1), std::chrono::seconds(60)).status, CheckStatus::crash);
  EXPECT_EQ(interpret(spec("driver.init"), finished("not json\n", 0), std::chrono::seconds(60)).status, CheckStatus::error);
  // A result for another check is not this check's result.
  EXPECT_EQ(interpret(spec("driver.init"), finished(kPassLine, 0), std::chrono::seconds(60)).status, CheckStatus::error);
}

TEST(VerifyInterpret, UnknownStatusBecomesError) {
  const auto r = interpret(spec("driver.init"), finished(R"({"check":"driver.init","status":"great","detail":"x"})"), std::chrono::seconds(60));
  EXPECT_EQ(r.status, CheckStatus::error);
}

std::string line(const std::string& check, const std::string& status, double seconds = 0.25) {
  return R"({"probe_schema":1,"check":")" + check + R"(","status":")" + status + R"(","detail":"d","stack":"nvidia","device":"GPU","seconds":)" +
         std::to_string(seconds) + R"(,"libraries":[],"metrics":{}})" + "\n";
}

std::vector<const CheckSpec*> cudnn_ops() {
  return {&spec("cudnn.create"), &spec("cudnn.pooling"), &spec("cudnn.softmax"), &spec("cudnn.batchnorm_train")};
}

TEST(VerifyUnit, EveryReportedCheckKeepsItsOwnResult) {
  auto p = finished(line("cudnn.create", "pass", 0.5) + line("cudnn.pooling", "unsupported") + line("cudnn.softmax", "pass") +
                    line("cudnn.batchnorm_train", "missing"));
  const auto o = interpret_unit(cudnn_ops(), p, std::chrono::seconds(60));
  ASSERT_EQ(o.results.size(), 4u);
  EXPECT_EQ(o.results[0].status, CheckStatus::pass);
  EXPECT_DOUBLE_EQ(o.results[0].seconds, 0.5) << "the check's own time, not the process's";
  EXPECT_EQ(o.results[1].status, CheckStatus::unsupported);
  EXPECT_EQ(o.results[3].status, CheckStatus::missing);
  EXPECT_EQ(o.results[1].shared_process, "cudnn-ops");
  EXPECT_TRUE(o.rerun_alone.empty() && o.rerun_together.empty());
}

TEST(VerifyUnit, ACrashIsChargedToTheRunningCheckAndTheRestRunAlone) {
  auto p = finished(line("cudnn.create", "pass") + line("cudnn.pooling", "pass"), 139);
  p.signal = 11;
  const auto o = interpret_unit(cudnn_ops(), p, std::chrono::seconds(60));
  ASSERT_EQ(o.results.size(), 3u);
  EXPECT_EQ(o.results[0].status, CheckStatus::pass) << "results printed before the crash stand";
  EXPECT_EQ(o.results[1].status, CheckStatus::pass);
  EXPECT_EQ(o.results[2].name, "cudnn.softmax");
  EXPECT_EQ(o.results[2].status, CheckStatus::crash);
  ASSERT_EQ(o.rerun_alone.size(), 1u);
  EXPECT_EQ(o.rerun_alone[0]->name, "cudnn.batchnorm_train");
}

TEST(VerifyUnit, TheWatchdogMakesATimeoutOfTheHungCheck) {
  auto p = finished(line("cudnn.create", "pass"), kProbeWatchdogExit);
  const auto o = interpret_unit(cudnn_ops(), p, std::chrono::seconds(7));
  ASSERT_EQ(o.results.size(), 2u);
  EXPECT_EQ(o.results[1].name, "cudnn.pooling");
  EXPECT_EQ(o.results[1].status, CheckStatus::timeout);
  EXPECT_NE(o.results[1].detail.find("7 s"), std::string::npos) << o.results[1].detail;
  EXPECT_EQ(o.rerun_alone.size(), 2u);
  // The runner's own timeout (the backstop) reads the same way.
  auto hung = finished(line("cudnn.create", "pass"));
  hung.timed_out = true;
  EXPECT_EQ(interpret_unit(cudnn_ops(), hung, std::chrono::seconds(7)).results[1].status, CheckStatus::timeout);
}

TEST(VerifyUnit, AfterAFailureTheRestRunTogetherInAFreshProcess) {
  auto p = finished(line("cudnn.create", "pass") + line("cudnn.pooling", "fail"));
  const auto o = interpret_unit(cudnn_ops(), p, std::chrono::seconds(60));
  ASSERT_EQ(o.results.size(), 2u);
  EXPECT_EQ(o.results[1].status, CheckStatus::fail);
  ASSERT_EQ(o.rerun_together.size(), 2u);
  EXPECT_EQ(o.rerun_together[0]->name, "cudnn.softmax");
  EXPECT_TRUE(o.rerun_alone.empty());
}

TEST(VerifyUnit, ACrashAtExitIsEveryChecksCrash) {
  std::string out;
  for (const auto* c : cudnn_ops()) out += line(c->name, "pass");
  auto p = finished(out, 134);
  p.signal = 6;
  const auto o = interpret_unit(cudnn_ops(), p, std::chrono::seconds(60));
  ASSERT_EQ(o.results.size(), 4u);
  for (const auto& r : o.results) {
    EXPECT_EQ(r.status, CheckStatus::crash) << r.name;
    EXPECT_NE(r.detail.find("after reporting pass"), std::string::npos) << r.detail;
  }
}

TEST(VerifyUnit, AnExitWithoutResultsIsAnErrorForTheRunningCheck) {
  // A library that calls exit(0) in the middle of a check.
  const auto o = interpret_unit(cudnn_ops(), finished(line("cudnn.create", "pass")), std::chrono::seconds(60));
  ASSERT_EQ(o.results.size(), 2u);
  EXPECT_EQ(o.results[1].status, CheckStatus::error);
  EXPECT_EQ(o.rerun_alone.size(), 2u);
}

TEST(VerifyReport, LevelIsInTheSummary) {
  Report report;
  report.checks = {result("driver.init", true, CheckStatus::pass)};
  report.checks[0].libraries.push_back(LibraryFile{"driver", "libcuda.so.1", "/x", "/x", std::nullopt, ""});
  const nlohmann::json json = report;
  EXPECT_EQ(json["summary"]["level"]["id"], "detected");
  EXPECT_NE(json["summary"]["level"]["reason"].get<std::string>().find("cuBLAS did not load"), std::string::npos);
}

TEST(VerifyReport, CoreChecksDecideUnlessSelectedExplicitly) {
  Report report;
  report.checks = {result("driver.init", true, CheckStatus::pass), result("cufft.c2c", false, CheckStatus::unsupported)};
  EXPECT_TRUE(report.passed()) << "a non-core check does not fail the run";
  report.explicit_selection = true;
  EXPECT_FALSE(report.passed()) << "with --check every selected check counts";
  report.explicit_selection = false;
  report.checks[0].status = CheckStatus::timeout;
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
  report.checks = {result("driver.init", true, CheckStatus::pass), result("cublas.sgemm", true, CheckStatus::fail),
                   result("cufft.c2c", false, CheckStatus::pass), result("nvml.init", false, CheckStatus::unsupported)};
  nlohmann::json json = report;
  EXPECT_EQ(json["summary"]["level"]["id"], "detected");  // the ladder's, tested in ladder_test
  json["summary"].erase("level");
  EXPECT_EQ(json["summary"], nlohmann::json::parse(R"({"counted": "core checks", "passed": false, "statuses": {"fail": 1, "pass": 1},
                                                       "others": {"pass": 1, "unsupported": 1}})"));
  report.explicit_selection = true;
  json = report;
  json["summary"].erase("level");
  EXPECT_EQ(json["summary"], nlohmann::json::parse(R"({"counted": "selected checks", "passed": false,
                                                       "statuses": {"fail": 1, "pass": 2, "unsupported": 1}, "others": {}})"));
}

TEST(VerifyReport, SavesLastAndATimestampedCopy) {
  TempDir dir;
  home::Home home{dir.path(), dir / "cache", dir / "state", dir / "logs", home::ChosenBy::flag};
  Report report;
  report.started_utc = "2026-12-02T11:54:03Z";
  report.checks = {result("driver.init", true, CheckStatus::pass)};
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
  home::Home home{dir.path(), dir / "cache", dir / "state", dir / "logs", home::ChosenBy::flag};
};

TEST_F(VerifyRuntime, NativeWhenNothingIsInstalled) {
  auto r = resolve_runtime(std::nullopt, "auto", home);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, RuntimeKind::native);
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
  EXPECT_EQ(r->kind, RuntimeKind::zluda);
  EXPECT_EQ(r->version, "v6-preview.69");
  EXPECT_EQ(*r->dir, dir / "installs" / "zluda" / "v6-preview.69");
  auto native = resolve_runtime(std::nullopt, "native", home);
  ASSERT_TRUE(native);
  EXPECT_EQ(native->kind, RuntimeKind::native) << "--runtime native overrides the installed ZLUDA";
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
  EXPECT_EQ(ok->kind, RuntimeKind::folder);
}

TEST(VerifyDigest, Sha256OfKnownContent) {
  TempDir dir;
  write_file(dir / "abc", "abc");
  write_file(dir / "empty", "");
  EXPECT_EQ(sha256_file(dir / "abc").value(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_file(dir / "empty").value(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  auto missing = sha256_file(dir / "missing");
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
  EXPECT_EQ(launch->method(), platform::LaunchMethod::copy_beside_dlls);
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
  EXPECT_EQ(through->method(), platform::LaunchMethod::zluda_exe);
  const auto via = through->spec({"x"});
  EXPECT_EQ(via.program, dir / "zluda.exe");
  EXPECT_EQ(via.args, (std::vector<std::string>{"--", child.string(), "x"}));
#else
  auto launch = platform::RuntimeLaunch::prepare(child, dir.path());
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->method(), platform::LaunchMethod::library_path);
  auto s = launch->spec({"env", "LD_LIBRARY_PATH"});
  s.streams = platform::StreamMode::capture;
  auto done = platform::run_process(s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->out.rfind(dir.path().string(), 0), 0u) << done->out;
#endif
  auto system = platform::RuntimeLaunch::prepare(child, std::nullopt);
  ASSERT_TRUE(system);
  EXPECT_EQ(system->method(), platform::LaunchMethod::system);
}

TEST(VerifyLaunch, CurrentExecutableIsThisTest) {
  auto self = platform::current_executable();
  ASSERT_TRUE(self);
#ifdef _WIN32
  EXPECT_EQ(self->filename(), "unit_tests.exe");
#else
  EXPECT_EQ(self->filename(), "unit_tests");
#endif
}

}  // namespace
}  // namespace zcuda::verify
