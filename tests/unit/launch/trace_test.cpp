// zcuda run --trace: the plan on both systems (zluda.exe --zluda-trace through the launcher
// encoding on Windows, zluda_trace's recipe on Linux), the refusals, where zluda_trace writes,
// and the snapshot that tells the run's traces apart; then `zcuda run --trace` with a real child
// that writes traces where ZLUDA_LOG_DIR says (Linux) or through a stand-in zluda.exe that writes
// them as zluda_trace does (Windows and Wine).
#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/launch/trace.hpp>
#include <zcuda/base/path_text.hpp>

#include "plan_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/test_child.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::launch {
namespace {

namespace fs = std::filesystem;
using platform::Os;

class TracePlan : public test_support::PlanFixture {
 protected:
  void SetUp() override {
    PlanFixture::SetUp();
    fs::create_directories(runtime / "trace");
    test::write_file(runtime / "zluda.exe", "launcher");
    options.trace = true;
    options.trace_log_dir = tmp / "traces" / "run-1";
  }
};

TEST_F(TracePlan, LinuxSetsTheTraceRecipeWithReasons) {
  test::write_file(runtime / "libcuda.so", "zluda's driver");
  auto plan = prepare_launch(options, {{"LD_LIBRARY_PATH", "/usr/lib/x"}});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("LD_LIBRARY_PATH"), zcuda::path_to_utf8(runtime / "trace") + ":" + zcuda::path_to_utf8(runtime) + ":/usr/lib/x");
  EXPECT_EQ(zcuda::path_from_utf8(plan->environment.at("ZLUDA_CUDA_LIB")), runtime / "libcuda.so");
  EXPECT_EQ(zcuda::path_from_utf8(plan->environment.at("ZLUDA_LOG_DIR")), options.trace_log_dir);
  EXPECT_FALSE(plan->environment.contains("LD_AUDIT"));  // LD_LIBRARY_PATH is ZLUDA's recommended method
  for (const char* name : {"LD_LIBRARY_PATH", "ZLUDA_CUDA_LIB", "ZLUDA_LOG_DIR"}) {
    ASSERT_TRUE(change(*plan, name)) << name;
    EXPECT_NE(change(*plan, name)->why.find("--trace"), std::string::npos) << name;
  }
  EXPECT_EQ(plan->trace_dir, options.trace_log_dir);
  EXPECT_FALSE(plan->trace_program);  // the folder is the run's own: everything in it counts
  EXPECT_FALSE(plan->through_launcher);
  const auto plan_json = to_json(*plan);
  EXPECT_EQ(zcuda::path_from_utf8(plan_json.at("trace").at("dir").get<std::string>()), options.trace_log_dir);

  // Without --trace none of it.
  options.trace = false;
  auto plain = prepare_launch(options, {});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->environment.contains("ZLUDA_LOG_DIR"));
  EXPECT_FALSE(plain->environment.contains("ZLUDA_CUDA_LIB"));
  EXPECT_FALSE(plain->trace_dir);
  EXPECT_TRUE(to_json(*plain).at("trace").is_null());
}

// Each trace shim forwards to the library its variable names, else to NVIDIA's own default path
// (zluda_trace_blas/src/lib.rs and its siblings): every one names ZLUDA's own file, as ZLUDA's
// Linux archive lays them out (lib<name>.so files, the CUDA names as links).
TEST_F(TracePlan, LinuxPointsEveryTraceShimAtZludasOwnLibrary) {
  for (const char* file :
       {"libnvcuda.so", "libcublas.so", "libcublaslt.so", "libcusparse.so", "libcufft.so", "libcudnn64_8.so", "libcudnn64_9.so", "libnvml.so"}) {
    test::write_file(runtime / file, file);
  }
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  const std::pair<const char*, const char*> expected[] = {
      {"ZLUDA_CUDA_LIB", "libnvcuda.so"},     {"ZLUDA_BLAS_LIB", "libcublas.so"}, {"ZLUDA_BLASLT_LIB", "libcublaslt.so"},
      {"ZLUDA_SPARSE_LIB", "libcusparse.so"}, {"ZLUDA_FFT_LIB", "libcufft.so"},   {"ZLUDA_DNN8_LIB", "libcudnn64_8.so"},
      {"ZLUDA_DNN9_LIB", "libcudnn64_9.so"},  {"ZLUDA_NVML_LIB", "libnvml.so"},
  };
  for (const auto& [variable, file] : expected) {
    ASSERT_TRUE(plan->environment.contains(variable)) << variable;
    EXPECT_EQ(zcuda::path_from_utf8(plan->environment.at(variable)), runtime / file) << variable;
    EXPECT_NE(change(*plan, variable)->why.find("NVIDIA's default path"), std::string::npos) << variable;
  }
  // A library this runtime lacks is left unset rather than pointed at a file that is not there.
  fs::remove(runtime / "libcufft.so");
  auto without_fft = prepare_launch(options, {});
  ASSERT_TRUE(without_fft);
  EXPECT_FALSE(without_fft->environment.contains("ZLUDA_FFT_LIB"));
}

// A ZLUDA_LOG_DIR the user set decides where zluda_trace writes: zcuda keeps it and collects the
// run's traces from there (the program's own folders only: the folder is shared).
TEST_F(TracePlan, AUsersOwnLogFolderIsKeptAndCollectedFrom) {
  const std::string mine = zcuda::path_to_utf8(tmp / "my traces");
  auto linux_plan = prepare_launch(options, {{"ZLUDA_LOG_DIR", mine}});
  ASSERT_TRUE(linux_plan) << linux_plan.error().message;
  EXPECT_EQ(linux_plan->environment.at("ZLUDA_LOG_DIR"), mine);
  EXPECT_FALSE(change(*linux_plan, "ZLUDA_LOG_DIR"));
  EXPECT_EQ(linux_plan->trace_dir, tmp / "my traces");
  EXPECT_EQ(linux_plan->trace_program, "app.exe");

  options.os = Os::windows;
  auto windows_plan = prepare_launch(options, {{"ZLUDA_LOG_DIR", mine}, {"TMP", "C:\\Temp"}});
  ASSERT_TRUE(windows_plan) << windows_plan.error().message;
  EXPECT_EQ(windows_plan->trace_dir, tmp / "my traces");
  EXPECT_EQ(windows_plan->trace_program, "app.exe");
}

// zluda.exe --zluda-trace names NVML's library in ZLUDA_ML_LIB, but the NVML shim reads
// ZLUDA_NVML_LIB (zluda_windows/src/lib.rs, zluda_trace_nvml/src/lib.rs): zcuda sets the one the
// shim reads.
TEST_F(TracePlan, WindowsSetsTheNvmlVariableTheShimReads) {
  options.os = Os::windows;
  test::write_file(runtime / "nvml.dll", "zluda's nvml");
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->environment.contains("ZLUDA_NVML_LIB"));
  EXPECT_EQ(zcuda::path_from_utf8(plan->environment.at("ZLUDA_NVML_LIB")), runtime / "nvml.dll");
  EXPECT_NE(change(*plan, "ZLUDA_NVML_LIB")->why.find("ZLUDA_ML_LIB"), std::string::npos);
}

TEST_F(TracePlan, LinuxTraceFolderFollowsAnEnvOverride) {
  options.overrides = {{"ZLUDA_LOG_DIR", zcuda::path_to_utf8(tmp / "mine")}};
  auto plan = prepare_launch(options, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->trace_dir, tmp / "mine");
}

TEST_F(TracePlan, WindowsGoesThroughZludaExeWithZludaTraceAheadOfTheSeparator) {
  options.os = Os::windows;
  options.args = {"a b", ""};
  const platform::Environment env = {{"TMP", "C:\\Users\\someone\\AppData\\Local\\Temp"}, {"TEMP", "D:\\other"}};
  auto plan = prepare_launch(options, env);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->through_launcher);
  const std::string target = zcuda::path_to_utf8(plan->target);
  EXPECT_EQ(plan->args, (std::vector<std::string>{"--zluda-trace", "--", target, "a b", ""}));
  // Through the launcher encoding: the arguments still arrive exactly.
  options.launcher_join = LauncherJoin::spaces;
  auto encoded = prepare_launch(options, env);
  ASSERT_TRUE(encoded) << encoded.error().message;
  EXPECT_EQ(encoded->args, (std::vector<std::string>{"--zluda-trace", "--", "\"" + target + "\"", "\"a b\"", "\"\""}));
  // zluda.exe sets ZLUDA_LOG_DIR itself: zcuda sets nothing for it, and looks where it will write.
  EXPECT_FALSE(change(*encoded, "ZLUDA_LOG_DIR"));
  EXPECT_FALSE(change(*encoded, "ZLUDA_CUDA_LIB"));
  EXPECT_EQ(encoded->trace_dir, zcuda::path_from_utf8("C:\\Users\\someone\\AppData\\Local\\Temp") / "zluda");
  EXPECT_EQ(encoded->trace_program, "app.exe");
  // Asked for by the caller too: still once.
  options.launcher_flags = {"--zluda-trace"};
  auto once = prepare_launch(options, env);
  ASSERT_TRUE(once);
  EXPECT_EQ(std::count(once->args.begin(), once->args.end(), "--zluda-trace"), 1);
}

TEST_F(TracePlan, WithoutATraceFolderItIsRefusedOnBothSystems) {
  fs::remove_all(runtime / "trace");
  for (Os os : {Os::linux, Os::windows}) {
    options.os = os;
    auto plan = prepare_launch(options, {});
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().kind, ErrorKind::not_found);
    EXPECT_NE(plan.error().message.find("no trace folder"), std::string::npos) << plan.error().message;
    EXPECT_NE(plan.error().hint.find("--runtime-dir"), std::string::npos) << plan.error().hint;
  }
  options.trace = false;
  EXPECT_TRUE(prepare_launch(options, {}));
}

TEST_F(TracePlan, WindowsRefusesDirectAndARuntimeWithoutZludaExe) {
  options.os = Os::windows;
  options.direct = true;
  auto direct = prepare_launch(options, {});
  ASSERT_FALSE(direct);
  EXPECT_EQ(direct.error().kind, ErrorKind::usage);
  EXPECT_NE(direct.error().message.find("--direct"), std::string::npos) << direct.error().message;
  options.direct = false;
  fs::remove(runtime / "zluda.exe");
  auto no_launcher = prepare_launch(options, {});
  ASSERT_FALSE(no_launcher);
  EXPECT_EQ(no_launcher.error().kind, ErrorKind::not_found);
  EXPECT_NE(no_launcher.error().message.find("zluda.exe"), std::string::npos) << no_launcher.error().message;
}

TEST(TraceFolders, WindowsLogFolderIsUnderTheTempFolderAsRustFindsIt) {
  EXPECT_EQ(windows_trace_log_dir({{"TMP", "C:\\t1"}, {"TEMP", "C:\\t2"}}), zcuda::path_from_utf8("C:\\t1") / "zluda");
  EXPECT_EQ(windows_trace_log_dir({{"temp", "C:\\t2"}, {"USERPROFILE", "C:\\Users\\u"}}), zcuda::path_from_utf8("C:\\t2") / "zluda");
  EXPECT_EQ(windows_trace_log_dir({{"TMP", ""}, {"USERPROFILE", "C:\\Users\\u"}}), zcuda::path_from_utf8("C:\\Users\\u") / "zluda");
  EXPECT_EQ(windows_trace_log_dir({{"SystemRoot", "C:\\Windows"}}), zcuda::path_from_utf8("C:\\Windows") / "zluda");
}

TEST(TraceFolders, AProgramsFoldersAreItsNameOrItsNameWithANumber) {
  EXPECT_TRUE(is_program_trace_folder("app.exe", "app.exe", Os::windows));
  EXPECT_TRUE(is_program_trace_folder("APP.EXE_12", "app.exe", Os::windows));
  EXPECT_FALSE(is_program_trace_folder("app.exe_", "app.exe", Os::windows));
  EXPECT_FALSE(is_program_trace_folder("app.exe_1a", "app.exe", Os::windows));
  EXPECT_FALSE(is_program_trace_folder("app.exe2", "app.exe", Os::windows));
  EXPECT_FALSE(is_program_trace_folder("app", "app.exe", Os::windows));
  EXPECT_FALSE(is_program_trace_folder("python.exe", "app.exe", Os::windows));
  EXPECT_TRUE(is_program_trace_folder("app_3", "app", Os::linux));
  EXPECT_FALSE(is_program_trace_folder("APP", "app", Os::linux));
}

TEST(TraceSnapshot, NewAndChangedFilesAreTheRunsUntouchedAndOtherProgramsAreNot) {
  test::TempDir tmp;
  const fs::path dir = tmp / "zluda";
  test::write_file(dir / "app.exe" / "log.txt", "an earlier run");
  test::write_file(dir / "app.exe" / "grows.txt", "short");
  test::write_file(dir / "python.exe" / "log.txt", "another program");
  const auto before = snapshot_traces(dir, std::string("app.exe"), Os::windows);
  EXPECT_EQ(before.size(), 2u);
  test::write_file(dir / "app.exe" / "grows.txt", "longer than it was");
  test::write_file(dir / "app.exe_1" / "log.txt", "this run");
  test::write_file(dir / "app.exe_1" / "module_0001.ptx", ".version 8.0");
  test::write_file(dir / "python.exe_1" / "log.txt", "another program's run");
  const auto after = snapshot_traces(dir, std::string("app.exe"), Os::windows);
  EXPECT_EQ(new_trace_files(before, after),
            (std::vector<fs::path>{dir / "app.exe" / "grows.txt", dir / "app.exe_1" / "log.txt", dir / "app.exe_1" / "module_0001.ptx"}));
  // A folder of the run's own: everything in it.
  EXPECT_EQ(new_trace_files({}, snapshot_traces(dir, std::nullopt, Os::linux)).size(), 6u);
  EXPECT_TRUE(snapshot_traces(tmp / "missing", std::nullopt, Os::linux).empty());
}

// `zcuda run --trace` end to end, the run record keeping what the program wrote.
class TraceRun : public ::testing::Test {
 protected:
  std::optional<RunRecord> only_record() {
    std::vector<RunRecord> records;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(tmp / "home" / "state" / "runs", ec)) {
      auto record = read_run_record(entry.path());
      EXPECT_TRUE(record) << record.error().message;
      if (record) records.push_back(*record);
    }
    EXPECT_EQ(records.size(), 1u);
    if (records.size() != 1) return std::nullopt;
    return records.front();
  }
  test::TempDir tmp;
};

TEST_F(TraceRun, LinuxRunKeepsTheFilesTheProgramWroteInItsTraceFolder) {
#ifdef _WIN32
  GTEST_SKIP() << "Linux's recipe (ZLUDA_LOG_DIR set by zcuda); Windows goes through zluda.exe (the test below)";
#else
  const fs::path runtime = tmp / "runtime";
  fs::create_directories(runtime / "trace");
  const std::vector<std::string> argv = {"--home",
                                         zcuda::path_to_utf8(tmp / "home"),
                                         "run",
                                         "--runtime-dir",
                                         zcuda::path_to_utf8(runtime),
                                         "--no-stage",
                                         "--no-detect",
                                         "--trace",
                                         "/bin/sh",
                                         "-c",
                                         "mkdir -p \"$ZLUDA_LOG_DIR/sh\" && echo traced > \"$ZLUDA_LOG_DIR/sh/log.txt\" && echo out"};
  auto r = test::run_zcuda(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "out\n");
  EXPECT_NE(r.err.find("1 trace file(s) under"), std::string::npos) << r.err;
  auto record = only_record();
  ASSERT_TRUE(record);
  ASSERT_TRUE(record->traces);
  ASSERT_EQ(record->traces->files.size(), 1u);
  EXPECT_EQ(test::read_file(record->traces->files[0]), "traced\n");
  EXPECT_EQ(zcuda::path_from_utf8(record->traces->files[0]).parent_path().parent_path(), zcuda::path_from_utf8(record->traces->folder));
  EXPECT_EQ(zcuda::path_from_utf8(record->traces->folder).parent_path(), tmp / "home" / "state" / "traces");
#endif
}

TEST_F(TraceRun, WindowsRunGoesThroughZludaExeAndKeepsItsNewTraces) {
#ifndef _WIN32
  GTEST_SKIP() << "zluda.exe exists only on Windows; this runs on Windows and under Wine";
#else
  const fs::path runtime = tmp / "runtime";
  fs::create_directories(runtime / "trace");
  fs::copy_file(zcuda::path_from_utf8(FAKE_ZLUDA_quoting), runtime / "zluda.exe");
  const fs::path target = tmp / "prog dir" / "traced.exe";
  fs::create_directories(target.parent_path());
  fs::copy_file(test::test_child(), target);
  // The stand-in writes where zluda_trace would: %TEMP%\zluda\traced.exe[_N]\log.txt.
  const fs::path temp = tmp / "temp";
  fs::create_directories(temp / "zluda" / "traced.exe");
  test::write_file(temp / "zluda" / "traced.exe" / "log.txt", "an earlier run");
  test::CommandOptions o;
  o.set_env["TMP"] = zcuda::path_to_utf8(temp);
  o.set_env["TEMP"] = zcuda::path_to_utf8(temp);
  o.set_env["ZCUDA_TEST_PROBE"] = ZCUDA_TEST_PROBE_BIN;
  const std::vector<std::string> args = {"a b", ""};
  std::vector<std::string> argv = {
      "--home",  zcuda::path_to_utf8(tmp / "home"), "run",    "--runtime-dir", zcuda::path_to_utf8(runtime), "--no-stage", "--no-detect",
      "--trace", zcuda::path_to_utf8(target),       "argdump"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = test::run_zcuda(argv, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, test::argdump_output(args));
  auto record = only_record();
  ASSERT_TRUE(record);
  ASSERT_TRUE(record->traces);
  EXPECT_EQ(zcuda::path_from_utf8(record->traces->folder), temp / "zluda");
  ASSERT_EQ(record->traces->files.size(), 1u);
  EXPECT_EQ(zcuda::path_from_utf8(record->traces->files[0]), temp / "zluda" / "traced.exe_1" / "log.txt");
  EXPECT_NE(test::read_file(record->traces->files[0]).find("zluda_trace stand-in"), std::string::npos);
#endif
}

}  // namespace
}  // namespace zcuda::launch
