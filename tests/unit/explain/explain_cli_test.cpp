// zcuda explain end to end: recognised text, a log file, unknown text and its exit code, the list.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/explain/explain.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/explain/utf16.hpp"

#ifndef _WIN32
#include <sys/stat.h>
#endif

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

CommandOptions with_stdin(std::string text) {
  CommandOptions options;
  options.stdin_text = std::move(text);
  return options;
}

TEST(ExplainCli, ReadsAPipeOnStandardInput) {
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect"},
                     with_stdin("starting\nZLUDA failed to load rocblas.dll\nRuntimeError: No CUDA GPUs are available\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["explanations"].size(), 2u) << r.out;
  EXPECT_EQ(doc["explanations"][1]["id"], "no-gpu-visible");
  EXPECT_EQ(doc["input"]["source"], "standard input");
  EXPECT_EQ(doc["input"]["cut"], false);
  // TEXT wins over standard input, which is then not read.
  auto text = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect", "RuntimeError: No CUDA GPUs are available"},
                        with_stdin("ZLUDA failed to load rocblas.dll\n"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(nlohmann::json::parse(text.out)["explanations"].size(), 1u);
}

TEST(ExplainCli, PowerShellsUtf16PipeAndRedirectWithAndWithoutBom) {
  TempDir home;
  const std::string log = "PS> python main.py\r\nRuntimeError: No CUDA GPUs are available\r\n";
  for (bool bom : {true, false}) {
    auto r = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect", "--file", "-"}, with_stdin(utf16le(log, bom)));
    ASSERT_EQ(r.exit_code, 0) << "bom " << bom << ": " << r.err;
    auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["explanations"].size(), 1u) << r.out;
    EXPECT_EQ(doc["explanations"][0]["id"], "no-gpu-visible");
    EXPECT_EQ(doc["explanations"][0]["matched"]["line_number"], 2);
  }
  // What PowerShell 5.1's `>` leaves in a file: UTF-16LE with its BOM.
  const auto file = home.path() / "ps redirect.log";
  std::ofstream(file, std::ios::binary) << utf16le(log, true);
  auto f = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect", "--file", file.string()});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(nlohmann::json::parse(f.out)["explanations"][0]["id"], "no-gpu-visible");
}

TEST(ExplainCli, EmptyStandardInputIsNothingToExplain) {
  TempDir home;
  auto r = run_zcuda({"--home", home.path().string(), "explain", "--no-detect"}, with_stdin(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("standard input was empty"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--symptom list"), std::string::npos) << r.err;
}

TEST(ExplainCli, FileThatIsNotARegularFileIsRefusedAtOnce) {
  TempDir home;
  auto folder = run_zcuda({"--home", home.path().string(), "explain", "--no-detect", "--file", home.path().string()});
  EXPECT_EQ(folder.exit_code, 13) << folder.err;
  EXPECT_NE(folder.err.find("a directory"), std::string::npos) << folder.err;
  EXPECT_NE(folder.err.find("--file -"), std::string::npos) << folder.err;
#ifndef _WIN32
  const auto fifo = home.path() / "a pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CommandOptions options;
  options.timeout_seconds = 20;  // before the fix it waited for a writer forever
  auto pipe = run_zcuda({"--home", home.path().string(), "--json", "explain", "--no-detect", "--file", fifo.string()}, options);
  EXPECT_EQ(pipe.exit_code, 13) << pipe.err;
  auto doc = nlohmann::json::parse(pipe.out);
  EXPECT_EQ(doc["error"]["kind"], "unsupported");
  EXPECT_NE(doc["error"]["message"].get<std::string>().find("FIFO"), std::string::npos);
#endif
}

TEST(ExplainCli, OneMessageSeveralCausesInTextAndJson) {
  TempDir home;
  const std::string message =
      "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
      "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.";
  auto r = run_zcuda({"--home", home.path().string(), "explain", "--no-detect", message});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("likeliest cause, 1 of 4 [driver-25-5-1]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("other causes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[integrated-gpu-first]"), std::string::npos) << r.out;
  auto j = run_zcuda({"--home", home.path().string(), "--json", "explain", message});  // with detection
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["explanations"][0]["causes"].size(), 4u) << j.out;
  for (const auto& c : doc["explanations"][0]["causes"]) {
    EXPECT_TRUE(c["likelihood"] == "likely" || c["likelihood"] == "possible" || c["likelihood"] == "unlikely") << c;
    EXPECT_FALSE(c["because"].empty());
  }
}

TEST(ExplainCli, SymptomsAreListedAndCheckThisMachine) {
  TempDir home;
  auto list = run_zcuda({"--home", home.path().string(), "explain", "--symptom", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* id : {"first-run-hangs", "physx-ignores-gpu", "zluda-exe-starts-nothing"}) EXPECT_NE(list.out.find(id), std::string::npos) << id;
  for (const char* id : {"first-run-hangs", "physx-ignores-gpu", "zluda-exe-starts-nothing"}) {
    auto r = run_zcuda({"--home", home.path().string(), "--json", "explain", "--symptom", id});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["symptom"]["id"], id);
    EXPECT_FALSE(doc["symptom"]["machine"].empty()) << r.out;
    EXPECT_TRUE(doc["symptom"]["source"].get<std::string>().starts_with("https://"));
  }
  auto text = run_zcuda({"--home", home.path().string(), "explain", "--symptom", "first-run-hangs"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("kernel cache"), std::string::npos) << text.out;
  auto unknown = run_zcuda({"--home", home.path().string(), "explain", "--symptom", "slow"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("first-run-hangs"), std::string::npos) << unknown.err;
  EXPECT_EQ(run_zcuda({"--home", home.path().string(), "explain", "--symptom", "list", "some text"}).exit_code, 2);
}

}  // namespace
}  // namespace zcuda::test
