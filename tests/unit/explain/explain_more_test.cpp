// explain's newer parts: a message with several causes ranked by the machine's facts, reading a
// log from a stream or a file within a bound (UTF-16 kept whole when cut), refusing a file that is
// not a regular one, and the symptoms with no message.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/explain/explain.hpp>
#include <zcuda/manifest/embedded.hpp>
#include <zcuda/platform/files.hpp>

#include "support/temp_dir.hpp"
#include "unit/explain/knowledge_fixture.hpp"
#include "unit/explain/utf16.hpp"

#ifndef _WIN32
#include <sys/stat.h>
#endif

namespace zcuda::test {
namespace {

const char* const kUnknownError =
    "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
    "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.";

detect::Profile windows_machine(bool igpu_first, const std::string& adrenalin) {
  detect::Profile p;
  p.os = platform::Os::windows;
  detect::Gpu igpu;
  igpu.name = "AMD Radeon 780M";
  igpu.vendor_id = detect::kVendorAmd;
  igpu.gfx = "gfx1103";
  igpu.integrated = true;
  igpu.hip_index = igpu_first ? 0 : 1;
  detect::Gpu dgpu;
  dgpu.name = "AMD Radeon RX 7900 XTX";
  dgpu.vendor_id = detect::kVendorAmd;
  dgpu.gfx = "gfx1100";
  dgpu.hip_index = igpu_first ? 1 : 0;
  p.gpus = {igpu, dgpu};
  p.driver.adrenalin_version = adrenalin;
  return p;
}

std::vector<std::string> order(const explain::Explanation& e) {
  std::vector<std::string> ids;
  for (const auto& c : e.causes) ids.push_back(c.id);
  return ids;
}

explain::Explanation unknown_error(const explain::MachineFacts& machine) {
  const auto matches = explain::match_text(kb(), kUnknownError);
  EXPECT_EQ(matches.size(), 1u);
  return explain::explain_match(matches.at(0), machine);
}

TEST(Causes, CudaUnknownErrorHasFourSourcedCauses) {
  const auto& entry =
      *std::find_if(kb().entries.begin(), kb().entries.end(), [](const auto& e) { return e.id == "cuda-unknown-error-after-driver-update"; });
  ASSERT_EQ(entry.causes.size(), 4u);
  for (const auto& c : entry.causes) {
    EXPECT_TRUE(c.source.starts_with("https://")) << c.id;
    EXPECT_FALSE(c.cause.empty());
  }
  EXPECT_TRUE(entry.cause.empty());
}

TEST(Causes, WithoutMachineFactsTheFilesOrderStandsAndAllArePossible) {
  const auto e = unknown_error({});
  EXPECT_EQ(order(e), (std::vector<std::string>{"driver-25-5-1", "antivirus-removed-runtime-file", "integrated-gpu-first", "install-folder"}));
  for (const auto& c : e.causes) EXPECT_EQ(c.likelihood, explain::Likelihood::possible) << c.id;
  EXPECT_EQ(e.cause, e.causes.front().cause);
  EXPECT_EQ(e.fix, e.causes.front().fix);
}

TEST(Causes, TheDriverRanksFirstOn25_5_1) {
  explain::MachineFacts machine;
  machine.profile = windows_machine(false, "25.5.1");
  machine.quarantine_checked = true;
  const auto e = unknown_error(machine);
  EXPECT_EQ(e.causes.front().id, "driver-25-5-1");
  EXPECT_EQ(e.causes.front().likelihood, explain::Likelihood::likely);
  EXPECT_NE(e.causes.front().because.front().find("25.5.1 is installed"), std::string::npos);
  // The quarantine check and the GPU order rule theirs out; the install folder stays possible.
  EXPECT_EQ(order(e), (std::vector<std::string>{"driver-25-5-1", "install-folder", "antivirus-removed-runtime-file", "integrated-gpu-first"}));
  EXPECT_EQ(e.causes.back().likelihood, explain::Likelihood::unlikely);
}

TEST(Causes, AnIntegratedGpuFirstAndQuarantinedFilesOutrankTheDriver) {
  explain::MachineFacts machine;
  machine.profile = windows_machine(true, "25.8.1");
  machine.quarantined = {"nccl.dll"};
  machine.quarantine_checked = true;
  const auto e = unknown_error(machine);
  EXPECT_EQ(order(e), (std::vector<std::string>{"antivirus-removed-runtime-file", "integrated-gpu-first", "install-folder", "driver-25-5-1"}));
  EXPECT_EQ(e.causes[0].likelihood, explain::Likelihood::likely);
  EXPECT_NE(e.causes[0].because.front().find("nccl.dll"), std::string::npos);
  EXPECT_NE(e.causes[1].because.front().find("HIP index 1"), std::string::npos);
  EXPECT_EQ(e.causes[3].likelihood, explain::Likelihood::unlikely);
  EXPECT_NE(e.causes[3].because.front().find("25.8.1, not 25.5.1"), std::string::npos);
  EXPECT_EQ(e.cause, e.causes.front().cause);
}

TEST(Causes, JsonAndTextShowTheLikeliestFirstAndTheOthers) {
  explain::MachineFacts machine;
  machine.profile = windows_machine(true, "25.8.1");
  const auto e = unknown_error(machine);
  const auto j = explain::to_json(e);
  ASSERT_EQ(j["causes"].size(), 4u);
  EXPECT_EQ(j["causes"][0]["id"], "integrated-gpu-first");
  EXPECT_EQ(j["causes"][0]["likelihood"], "likely");
  EXPECT_EQ(j["cause"], j["causes"][0]["cause"]);
  const auto text = explain::render_text(e);
  const auto first = text.find("likeliest cause, 1 of 4 [integrated-gpu-first], likely here");
  const auto others = text.find("other causes");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(others, std::string::npos) << text;
  EXPECT_LT(first, others);
  EXPECT_NE(text.find("cause 4 of 4 [driver-25-5-1], unlikely here"), std::string::npos) << text;
  // A one-cause entry has no "causes" in its JSON.
  const auto single = explain::explain_match(explain::match_text(kb(), "RuntimeError: No CUDA GPUs are available").at(0), machine);
  EXPECT_FALSE(explain::to_json(single).contains("causes"));
}

TEST(Causes, OffWindowsTheDriverIsRuledOutAndALoneIntegratedGpuIsNotFirstOfTwo) {
  explain::MachineFacts machine;
  machine.profile = windows_machine(true, "");
  machine.profile->os = platform::Os::linux;
  machine.profile->gpus.pop_back();  // the integrated GPU alone
  EXPECT_EQ(explain::read_signal(explain::Signal::driver_25_5_1, machine).holds, false);
  EXPECT_EQ(explain::read_signal(explain::Signal::integrated_gpu_first, machine).holds, false);
  EXPECT_FALSE(explain::read_signal(explain::Signal::runtime_files_quarantined, machine).holds.has_value());
}

TEST(Causes, TheLoaderValidatesCauses) {
  const std::string c1 = R"({"id": "a", "cause": "c", "fix": "f", "when": ["driver_25_5_1"], "source": "https://a.example"})";
  const std::string c2 = R"({"id": "b", "cause": "c", "fix": "f", "when": [], "source": "https://b.example"})";
  auto entry = [](const std::string& causes, const std::string& extra = "") {
    return with_entry(R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "facts": [], "source": "https://a.example", "causes": )" +
                      causes + extra + "}");
  };
  auto good = explain::parse_knowledge_base(entry("[" + c1 + "," + c2 + "]"));
  ASSERT_TRUE(good) << good.error().message;
  ASSERT_EQ(good->entries[0].causes.size(), 2u);
  EXPECT_EQ(good->entries[0].causes[0].when, std::vector<explain::Signal>{explain::Signal::driver_25_5_1});
  const std::vector<std::pair<std::string, std::string>> bad = {
      {entry("[" + c1 + "]"), "two or more"},
      {entry("[" + c1 + "," + c2 + "]", R"(, "cause": "c")"), "no \"cause\""},
      {entry("[" + c1 + "," + c1 + "]"), "used twice"},
      {entry("[" + c1 + R"(, {"id": "b", "cause": "c", "fix": "f", "when": ["weather"], "source": "https://b.example"}])"), "unknown signal"},
      {entry("[" + c1 + R"(, {"id": "b", "cause": "c", "fix": "f", "when": [], "source": "our notes"}])"), "public"},
      {entry("[" + c1 + R"(, {"id": "b", "cause": "c", "fix": "f", "when": []}])"), "\"source\""},
      {entry("[" + c1 + R"(, {"id": "b", "cause": "c", "fix": "f", "when": [], "source": "https://b.example", "likely": 1}])"), "unknown field"},
      {entry("[" + c1 + R"(, {"id": "b", "cause": "{captured}", "fix": "f", "when": [], "source": "https://b.example"}])"), "no group"},
  };
  for (const auto& [text, says] : bad) {
    auto parsed = explain::parse_knowledge_base(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().message.find(says), std::string::npos) << parsed.error().message;
  }
  // An entry without causes still needs its cause and fix.
  EXPECT_FALSE(explain::parse_knowledge_base(
      with_entry(R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "fix": "f", "facts": [], "source": "https://a.example"})")));
}

// A stream holding `bytes`, read from its start; nullptr where no temporary file can be made
// (Windows' tmpfile writes to the drive's root).
std::FILE* stream_of(const std::string& bytes) {
  std::FILE* f = std::tmpfile();
  if (f == nullptr) return nullptr;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::rewind(f);
  return f;
}

TEST(LogInput, AStreamWithinTheBoundIsKeptWhole) {
  std::FILE* f = stream_of("line one\nRuntimeError: No CUDA GPUs are available\n");
  if (f == nullptr) GTEST_SKIP() << "no temporary file here";
  auto tail = platform::read_stream_tail(f, 1024);
  std::fclose(f);
  ASSERT_TRUE(tail);
  const auto input = explain::log_from_tail(std::move(*tail), "standard input");
  EXPECT_FALSE(input.cut);
  EXPECT_EQ(input.text, "line one\nRuntimeError: No CUDA GPUs are available\n");
}

TEST(LogInput, ALongStreamKeepsItsEndFromAWholeLine) {
  std::string log;
  for (int i = 0; i < 5000; ++i) log += "progress " + std::to_string(i) + "\n";
  log += "RuntimeError: No CUDA GPUs are available\n";
  std::FILE* f = stream_of(log);
  if (f == nullptr) GTEST_SKIP() << "no temporary file here";
  auto tail = platform::read_stream_tail(f, 4096);
  std::fclose(f);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->total, log.size());
  const auto input = explain::log_from_tail(std::move(*tail), "standard input");
  EXPECT_TRUE(input.cut);
  EXPECT_LE(input.text.size(), 4096u);
  EXPECT_TRUE(input.text.starts_with("progress ")) << input.text.substr(0, 40);
  const auto matches = explain::match_text(kb(), input.text);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].entry->id, "no-gpu-visible");
  EXPECT_NE(explain::cut_notice(input).find("only its last"), std::string::npos);
}

TEST(LogInput, ACutUtf16StreamStaysAlignedWithAndWithoutItsBom) {
  for (bool bom : {true, false}) {
    std::string ascii;
    for (int i = 0; i < 3000; ++i) ascii += "step " + std::to_string(i) + "\r\n";
    ascii += "RuntimeError: No CUDA GPUs are available\r\n";
    const std::string bytes = utf16le(ascii, bom);
    for (std::size_t cap : {std::size_t{4095}, std::size_t{4096}, std::size_t{5001}}) {
      std::FILE* f = stream_of(bytes);
      if (f == nullptr) GTEST_SKIP() << "no temporary file here";
      auto tail = platform::read_stream_tail(f, cap);
      std::fclose(f);
      ASSERT_TRUE(tail);
      const auto input = explain::log_from_tail(std::move(*tail), "standard input");
      ASSERT_TRUE(input.cut);
      const auto text = explain::normalise_log(input.text);
      EXPECT_TRUE(text.starts_with("step ")) << "bom " << bom << " cap " << cap << ": " << text.substr(0, 20);
      const auto matches = explain::match_text(kb(), input.text);
      ASSERT_EQ(matches.size(), 1u) << "bom " << bom << " cap " << cap;
      EXPECT_EQ(matches[0].entry->id, "no-gpu-visible");
    }
  }
}

TEST(LogInput, AFileLongerThanTheBoundIsReadFromItsEnd) {
  TempDir dir;
  const auto log = dir / "long log.txt";
  std::string text(100000, 'x');
  text += "\nRuntimeError: No CUDA GPUs are available\n";
  write_file(log, text);
  auto input = explain::read_log_file(log, 8192);
  ASSERT_TRUE(input) << input.error().message;
  EXPECT_TRUE(input->cut);
  EXPECT_EQ(input->total, text.size());
  EXPECT_EQ(input->text, "RuntimeError: No CUDA GPUs are available\n");
  auto whole = explain::read_log_file(log);
  ASSERT_TRUE(whole);
  EXPECT_FALSE(whole->cut);
  EXPECT_EQ(whole->text, text);
}

TEST(LogInput, AFileThatIsNotRegularIsRefused) {
  TempDir dir;
  auto folder = explain::read_log_file(dir.path());
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().kind, ErrorKind::unsupported);
  EXPECT_NE(folder.error().message.find("a directory"), std::string::npos) << folder.error().message;
  EXPECT_NE(folder.error().hint.find("--file -"), std::string::npos);
#ifndef _WIN32
  const auto fifo = dir / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = explain::read_log_file(fifo);  // returns at once: nothing opens the FIFO
  ASSERT_FALSE(pipe);
  EXPECT_EQ(pipe.error().kind, ErrorKind::unsupported);
  EXPECT_NE(pipe.error().message.find("FIFO"), std::string::npos) << pipe.error().message;
  auto device = explain::read_log_file("/dev/zero");
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().message.find("character device"), std::string::npos) << device.error().message;
#endif
}

TEST(Symptoms, BuiltInAreValidAndCoverTheThreeChecks) {
  auto symptoms = explain::builtin_symptoms();
  ASSERT_TRUE(symptoms) << symptoms.error().message;
  std::vector<std::string> ids;
  for (const auto& s : **symptoms) {
    ids.push_back(s.id);
    EXPECT_TRUE(s.source.starts_with("https://")) << s.id;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"first-run-hangs", "physx-ignores-gpu", "zluda-exe-starts-nothing"}));
}

TEST(Symptoms, ValidationRefusesBrokenSymptoms) {
  auto one = [](const std::string& fields) {
    return R"({"format": 1, "symptoms": [{"id": "s", "title": "t", "seen": "s", "cause": "c", "fix": "f", )" + fields + "}]}";
  };
  ASSERT_TRUE(explain::parse_symptoms(one(R"("check": "launcher", "source": "https://a.example")")));
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {one(R"("check": "weather", "source": "https://a.example")"), "unknown check"},
           {one(R"("check": "launcher", "source": "notes.txt")"), "public"},
           {one(R"("check": "launcher")"), "\"source\""},
           {R"({"format": 1, "symptoms": []})", "no \"symptoms\""},
       }) {
    auto parsed = explain::parse_symptoms(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().message.find(says), std::string::npos) << parsed.error().message;
  }
}

TEST(Symptoms, EachCheckSaysWhatItFoundOnThisMachine) {
  TempDir dir;
  auto symptoms = explain::builtin_symptoms();
  ASSERT_TRUE(symptoms);
  auto home = home::resolve_home(dir.path() / "home");
  ASSERT_TRUE(home);
  for (const auto& s : **symptoms) {
    const auto report = explain::check_symptom(s, *home);
    EXPECT_FALSE(report.findings.found.empty()) << s.id;
    const auto j = explain::to_json(report);
    EXPECT_EQ(j["id"], s.id);
    EXPECT_TRUE(j["machine"].is_array());
    EXPECT_NE(explain::render_text(report).find("machine: "), std::string::npos);
  }
}

}  // namespace
}  // namespace zcuda::test
