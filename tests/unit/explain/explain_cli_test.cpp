// zcuda explain end to end: recognised text, a log file, unknown text and its exit code, the list.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/explain/explain.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::test {
namespace {

TEST(ExplainCli, KnownMessageExplainsWithTheGfxFromTheMessage) {
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "explain", "--no-detect", "rocBLAS error: Could not load …TensileLibrary_lazy_gfx1103.dat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[rocblas-lazy-library-missing]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TensileLibrary_lazy_gfx1103.dat"), std::string::npos) << r.out;
}

TEST(ExplainCli, UnknownTextHasItsOwnExitCodeAndSaysWhatToCollect) {
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "explain", "--no-detect", "something", "else", "entirely"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("does not know"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("zcuda report --bundle"), std::string::npos) << r.out;
  auto j = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect", "something else"});
  EXPECT_EQ(j.exit_code, 1);
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["known"], false);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_TRUE(doc["explanations"].empty());
}

TEST(ExplainCli, LogFileWithDetectionRuns) {
  TempDir dir;
  const auto log = dir.path() / "run log.txt";
  std::ofstream(log, std::ios::binary) << "loading\r\nZLUDA failed to load rocblas.dll\r\nNo CUDA GPUs are available\r\n";
  auto r = run_zcuda({"--home", (dir.path() / "home").string(), "--json", "explain", "--file", log.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["explanations"].size(), 2u) << r.out;
  EXPECT_EQ(doc["explanations"][0]["id"], "zluda-perf-library-not-loaded");
  EXPECT_EQ(doc["explanations"][1]["id"], "no-gpu-visible");
  EXPECT_EQ(doc["explanations"][1]["matched"]["line_number"], 3);
}

TEST(ExplainCli, UsageErrors) {
  TempDir home;
  EXPECT_EQ(run_zcuda({"--home", home.path().string(), "explain"}).exit_code, 2);
  EXPECT_EQ(run_zcuda({"--home", home.path().string(), "explain", "--markdown", "x"}).exit_code, 2);
  EXPECT_EQ(run_zcuda({"--home", home.path().string(), "explain", "--file", (home.path() / "missing.log").string()}).exit_code, 2);
}

TEST(ExplainCli, ListAndMarkdown) {
  TempDir home;
  auto list = run_zcuda({"--home", home.path().string(), "explain", "--list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("antivirus-quarantine"), std::string::npos);
  auto md = run_zcuda({"--home", home.path().string(), "explain", "--list", "--markdown"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  auto kb = explain::builtin_knowledge_base();
  ASSERT_TRUE(kb);
  EXPECT_EQ(md.out, explain::render_markdown(**kb));
}

}  // namespace
}  // namespace zcuda::test
