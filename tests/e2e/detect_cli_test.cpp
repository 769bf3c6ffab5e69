#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "zcuda_test_paths.hpp"

namespace zcuda::test {
namespace {

std::string fixture(const std::string& name) { return std::string(ZCUDA_FIXTURES_DIR) + "/detect/" + name; }

TEST(DetectCli, HumanOutputSummarisesThenExplains) {
  TempDir home;
  auto r = run_zcuda({"detect", "--root", fixture("kernels-missing-rx9070xt"), "--home", home.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Not ready: 2 errors to fix", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("AMD Radeon RX 9070 XT"), std::string::npos);
  EXPECT_NE(r.out.find("[rocblas-kernels-missing]"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colour when NO_COLOR is set and output is a pipe";
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string counted(std::size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

// The summary line counts what it names: errors as errors, warnings as warnings, on every
// captured machine.
// The runtime `zcuda run` uses, with its family: none, then an installed one (zluda_ld is a name
// only upstream ships; its libcuda.so.1 and nvcuda.dll are no library at all, so the name decides on either OS).
TEST(DetectCli, TheInstalledRuntimeIsNamedWithItsFamily) {
  TempDir home;
  auto none = run_zcuda({"--json", "detect", "--no-hip", "--home", home.path().string()});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(nlohmann::json::parse(none.out).at("zluda_runtime").is_null());
  EXPECT_NE(run_zcuda({"detect", "--no-hip", "--home", home.path().string()}).out.find("none installed"), std::string::npos);

  const auto version = home / "installs" / "zluda" / "v1";
  for (const char* name : {"libcuda.so.1", "nvcuda.dll", "zluda_ld"}) write_file(version / name, "stand-in");
  write_file(home / "installs" / "zluda" / "current", "v1\n");
  auto js = run_zcuda({"--json", "detect", "--no-hip", "--home", home.path().string()});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const auto runtime = nlohmann::json::parse(js.out).at("zluda_runtime");
  EXPECT_EQ(runtime["version"], "v1") << runtime.dump();
  EXPECT_EQ(runtime["family"]["family"], "upstream") << runtime.dump();
  EXPECT_TRUE(runtime["family"]["release"].is_null());
  auto text = run_zcuda({"detect", "--no-hip", "--home", home.path().string()});
  EXPECT_NE(text.out.find("(upstream family)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("v1 at "), std::string::npos) << text.out;

  // A captured tree is not this home's machine: no runtime is named.
  auto rooted = run_zcuda({"--json", "detect", "--root", fixture("kernels-missing-rx9070xt"), "--home", home.path().string()});
  EXPECT_FALSE(nlohmann::json::parse(rooted.out).contains("zluda_runtime"));
}

TEST(DetectCli, SummaryLineCountsWhatItSays) {
  TempDir home;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ZCUDA_FIXTURES_DIR) + "/detect")) {
    if (!entry.is_directory()) continue;
    const std::string root = entry.path().string();
    auto js = run_zcuda({"--json", "detect", "--root", root, "--home", home.path().string()});
    ASSERT_EQ(js.exit_code, 0) << root << js.err;
    std::size_t errors = 0, warnings = 0;
    const auto profile = nlohmann::json::parse(js.out);
    for (const auto& f : profile["findings"]) {
      errors += f["severity"] == "error";
      warnings += f["severity"] == "warning";
    }
    auto r = run_zcuda({"detect", "--root", root, "--home", home.path().string()});
    ASSERT_EQ(r.exit_code, 0) << root << r.err;
    const std::string summary = r.out.substr(0, r.out.find('\n'));
    if (errors > 0) {
      EXPECT_EQ(summary.rfind(fmt::format("Not ready: {} to fix", counted(errors, "error")), 0), 0u) << root << ": " << summary;
    } else {
      EXPECT_EQ(summary.rfind("Ready: ", 0), 0u) << root << ": " << summary;
    }
    if (warnings > 0) {
      EXPECT_NE(summary.find(counted(warnings, "warning")), std::string::npos) << root << ": " << summary;
    } else {
      EXPECT_EQ(summary.find("warning"), std::string::npos) << root << ": " << summary;
    }
    EXPECT_EQ(summary.find("problem"), std::string::npos) << root << ": " << summary;
    EXPECT_EQ(occurrences(r.out, "✗ error"), errors) << root;
    EXPECT_EQ(occurrences(r.out, "! warning"), warnings) << root;
  }
}

TEST(DetectCli, StrictExitsWithEnvironmentCode) {
  TempDir home;
  auto r = run_zcuda({"detect", "--strict", "--root", fixture("empty"), "--home", home.path().string()});
  EXPECT_EQ(r.exit_code, 10);
  auto ok = run_zcuda({"detect", "--strict", "--root", fixture("rx9060xt-rocm64"), "--home", home.path().string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

TEST(DetectCli, JsonHasSchemaAndIntegerIds) {
  TempDir home;
  auto r = run_zcuda({"--json", "detect", "--root", fixture("igpu-plus-rx7900xtx"), "--home", home.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], 1);
  EXPECT_EQ(j["command"], "detect");
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_TRUE(j["gpus"][1]["device_id"].is_number_integer());
  EXPECT_EQ(j["gpus"][1]["device_id"].get<int>(), 0x744C);
  EXPECT_EQ(j["gpus"][1]["gfx"], "gfx1100");
  EXPECT_EQ(j["hip"]["version"], "6.4.0-47");
}

TEST(DetectCli, GlobalOptionsMayFollowTheCommandAndLogGoesUnderHome) {
  TempDir home;
  auto r = run_zcuda({"detect", "--root", fixture("empty"), "--json", "--home", home.path().string(), "-v"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  auto log = read_file(home / "logs" / "zcuda.log");
  EXPECT_NE(log.find("command line:"), std::string::npos);
  EXPECT_NE(log.find("detect finished"), std::string::npos);
}

TEST(DetectCli, ZcudaHomeEnvironmentIsUsed) {
  TempDir home;
  CommandOptions o;
  o.set_env["ZCUDA_HOME"] = (home / "h").string();
  auto r = run_zcuda({"detect", "--root", fixture("empty")}, o);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(home / "h" / "logs" / "zcuda.log"));
}

TEST(DetectCli, MissingRootIsAUsageError) {
  auto r = run_zcuda({"detect", "--root", "/nonexistent/zcuda"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(DetectCli, ColourOnlyWhenAsked) {
  TempDir home;
  CommandOptions o;
  o.unset_env = {"NO_COLOR"};
  o.set_env["NO_COLOR"] = "";
  auto r = run_zcuda({"detect", "--color", "always", "--root", fixture("empty"), "--home", home.path().string()}, o);
  EXPECT_NE(r.out.find("\x1b["), std::string::npos);
  CommandOptions n;
  n.set_env["NO_COLOR"] = "1";
  auto plain = run_zcuda({"detect", "--color", "always", "--root", fixture("empty"), "--home", home.path().string()}, n);
  EXPECT_EQ(plain.out.find("\x1b["), std::string::npos);
}

TEST(DetectCli, BackendsSectionSaysWhatServesEachGpuWithItsSources) {
  TempDir home;
  auto text = run_zcuda({"detect", "--root", fixture("rx6800"), "--home", home.path().string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::size_t at = text.out.find("\nBackends\n");
  ASSERT_NE(at, std::string::npos) << text.out;
  const std::string section = text.out.substr(at);
  EXPECT_NE(section.find("AMD Radeon RX 6800 (gfx1030), Linux"), std::string::npos) << section;
  EXPECT_NE(section.find("PyTorch applications: native ROCm PyTorch [release-ready]"), std::string::npos) << section;
  EXPECT_NE(section.find("pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ \"torch[device-gfx1030]\""), std::string::npos)
      << section;
  EXPECT_NE(section.find("CUDA-only programs: ZLUDA"), std::string::npos) << section;
  EXPECT_NE(section.find("sources: https://github.com/ROCm/TheRock/blob/"), std::string::npos) << section;

  auto js = run_zcuda({"--json", "detect", "--root", fixture("rx580"), "--home", home.path().string()});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["backends"].size(), 1u);
  EXPECT_EQ(j["backends"][0]["gfx"], "gfx803");
  EXPECT_EQ(j["backends"][0]["pytorch"]["backend"], "none");
  EXPECT_EQ(j["backends"][0]["cuda_only"]["backend"], "none");
  EXPECT_FALSE(j["backends"][0]["sources"].empty());
  auto nvidia = run_zcuda({"--json", "detect", "--root", fixture("nvidia-only"), "--home", home.path().string()});
  EXPECT_TRUE(nlohmann::json::parse(nvidia.out)["backends"].empty());
}

}  // namespace
}  // namespace zcuda::test
