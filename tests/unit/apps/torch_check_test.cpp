// The torch check: its output read back, its record, the launch's profile variables, and the
// check run for real in a venv over Debian's python3-torch (CPU-only), where CUDA must be found
// unavailable with the reason.
#include <gtest/gtest.h>

#include <zcuda/apps/check.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/platform/process.hpp>

#include "support/temp_dir.hpp"

namespace zcuda::apps {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(TorchCheck, ReadsTheResultLine) {
  CheckRecord r;
  read_check_output(
      "torch says hello\nZCUDA-TORCH-CHECK {\"status\": \"pass\", \"reason\": \"\", \"torch\": \"2.11.0\", \"libraries\": [\"/x/libcuda.so.1\"], "
      "\"cuda_available\": true, \"device\": \"AMD Radeon RX 7900 XTX [ZLUDA]\", \"comparisons\": [{\"name\": \"mm\", \"ok\": true, "
      "\"max_relative_error\": 0.0001, \"tolerance\": 0.01}]}\n",
      "", 0, r);
  EXPECT_EQ(r.status, CheckStatus::pass) << r.reason;
  EXPECT_EQ(r.facts["torch"], "2.11.0");
  EXPECT_EQ(r.facts["libraries"][0], "/x/libcuda.so.1");

  // The marker alone, or facts that do not show CUDA working, are not a pass.
  for (
      const char* line :
      {R"({"status": "pass", "reason": ""})",
       R"({"status": "pass", "cuda_available": false, "device": "x", "comparisons": [{"ok": true, "max_relative_error": 0, "tolerance": 1}]})",
       R"({"status": "pass", "cuda_available": true, "device": "x", "comparisons": []})",
       R"({"status": "pass", "cuda_available": true, "device": "x", "comparisons": [{"ok": true, "max_relative_error": 0.5, "tolerance": 0.01}]})"}) {
    CheckRecord claimed;
    read_check_output(std::string("ZCUDA-TORCH-CHECK ") + line + "\n", "", 0, claimed);
    EXPECT_EQ(claimed.status, CheckStatus::error) << line;
    EXPECT_NE(claimed.reason.find("says pass, but"), std::string::npos) << claimed.reason;
  }

  CheckRecord crashed;
  read_check_output("", "Traceback (most recent call last):\nOSError: [WinError 126] cublas64_11.dll\n", 1, crashed);
  EXPECT_EQ(crashed.status, CheckStatus::error);
  EXPECT_NE(crashed.reason.find("exit code 1"), std::string::npos);
  EXPECT_NE(crashed.reason.find("WinError 126"), std::string::npos);
}

TEST(TorchCheck, TheRecordReadsBackAndCountsForTheLadder) {
  TempDir dir;
  auto home = home::resolve_home(dir.path());
  ASSERT_TRUE(home);
  CheckRecord r;
  r.profile = "pytorch";
  r.app = "/venv/bin/python";
  r.runtime = "native";
  r.started_utc = "2026-12-04T16:00:00Z";
  r.status = CheckStatus::unavailable;
  r.flavour_problem = "CPU-only";
  ASSERT_TRUE(write_check(*home, r));
  EXPECT_FALSE(any_check_passed(*home));
  r.status = CheckStatus::pass;
  ASSERT_TRUE(write_check(*home, r));
  EXPECT_TRUE(any_check_passed(*home));
  const auto read = read_checks(*home, 10);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].status, CheckStatus::pass);  // newest first
  EXPECT_EQ(read[1].flavour_problem, "CPU-only");
  EXPECT_FALSE(parse_record<CheckRecord>(nlohmann::json{{"profile", "p"}, {"app", "a"}, {"runtime", "r"}, {"started_utc", "t"}, {"status", "maybe"}},
                                         "record"));
}

TEST(TorchCheck, ProfileVariablesComeBeforeEnvWhichOverridesThem) {
  launch::Options o;
  o.program = "/bin/sh";
  o.os = platform::Os::linux;
  o.runtime.dir = fs::temp_directory_path();
  o.settings = {{"MIOPEN_FIND_MODE", "2", "profile pytorch: fast find"}, {"MIOPEN_LOG_LEVEL", "3", "profile comfyui-zluda: errors only"}};
  o.overrides = {{"MIOPEN_FIND_MODE", "1"}};
  auto plan = launch::prepare_launch(o, {});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->environment.at("MIOPEN_FIND_MODE"), "1");
  EXPECT_EQ(plan->environment.at("MIOPEN_LOG_LEVEL"), "3");
  auto level = std::find_if(plan->changes.begin(), plan->changes.end(), [](const launch::EnvChange& c) { return c.name == "MIOPEN_LOG_LEVEL"; });
  ASSERT_NE(level, plan->changes.end());
  EXPECT_NE(level->why.find("profile comfyui-zluda: errors only"), std::string::npos);
  EXPECT_NE(level->why.find("--env MIOPEN_LOG_LEVEL="), std::string::npos);
}

// Debian's python3-torch (CPU) through a venv made as users make one: recognition asks the
// interpreter, and the check says CUDA is unavailable, and why.
TEST(TorchCheck, RealVenvOverDebiansCpuTorch) {
  if (platform::current_os() != platform::Os::linux) GTEST_SKIP() << "Linux only";
  std::error_code ec;
  if (!fs::exists("/usr/lib/python3/dist-packages/torch/version.py", ec)) {
    GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)";
  }
  TempDir dir;
  platform::ProcessSpec make;
  make.program = "/usr/bin/python3";
  make.args = {"-m", "venv", "--system-site-packages", "--without-pip", path_to_utf8(dir / "venv")};
  make.streams = platform::StreamMode::capture;
  auto made = platform::run_process(make);
  ASSERT_TRUE(made && made->exit_code == 0) << (made ? made->err : made.error().message);

  auto profiles = load(std::nullopt);
  ASSERT_TRUE(profiles);
  const fs::path python = dir / "venv" / "bin" / "python";
  // Found by reading pyvenv.cfg and the base install's files: nothing is run to inspect it.
  auto r = recognise(*profiles, Given{python, {"train.py"}, platform::Os::linux, false});
  ASSERT_FALSE(r.matches.empty());
  EXPECT_EQ(r.matches.front().profile.name, "pytorch");
  ASSERT_TRUE(r.torch);
  EXPECT_EQ(r.torch->found_by, "files (the base install, pyvenv.cfg)");
  EXPECT_EQ(r.torch->package, fs::path("/usr/lib/python3/dist-packages/torch"));
  EXPECT_TRUE(r.torch->venv);
  EXPECT_FALSE(r.torch->cuda);
  const apps::Setup s = setup_for(r.matches.front(), platform::Os::linux, {});
  ASSERT_TRUE(s.flavour_problem);
  EXPECT_NE(s.flavour_problem->find("CPU-only"), std::string::npos);

  auto script = torch_check_script();
  ASSERT_TRUE(script);
  test::write_file(dir / "torch-check.py", *script);
  launch::Options o;
  o.program = python;
  o.args = {path_to_utf8(dir / "torch-check.py")};
  auto plan = launch::prepare_native_launch(o, platform::current_environment());
  ASSERT_TRUE(plan);
  CheckRecord record;
  ASSERT_TRUE(run_torch_check(*plan, std::chrono::seconds(240), record));
  EXPECT_EQ(record.status, CheckStatus::unavailable) << record.reason;
  EXPECT_NE(record.reason.find("CPU-only build"), std::string::npos) << record.reason;
  EXPECT_EQ(record.facts["cuda_available"], false);
  EXPECT_TRUE(record.facts["torch"].is_string());
  EXPECT_TRUE(record.facts["libraries"].is_array());
}

}  // namespace
}  // namespace zcuda::apps
