// The knowledge base of failure messages: valid, each entry recognising the real message text its
// sources quote (and no other entry's), and explanations filled with the machine's facts.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/explain/explain.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::test {
namespace {

using explain::KnowledgeBase;

const KnowledgeBase& kb() {
  auto loaded = explain::builtin_knowledge_base();
  if (!loaded) throw std::runtime_error(loaded.error().message);
  return **loaded;
}

// One row per entry: the real message text, as the cited issue or source quotes it, written here
// independently of the manifest's own samples. What the explanation must then say.
struct RealMessage {
  std::string id;
  std::string text;
  std::string title_has;
};

const std::vector<RealMessage>& real_messages() {
  static const std::vector<RealMessage> rows = {
      {"rocblas-no-kernels-for-gfx",
       "rocBLAS error: Cannot read …\\rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036", "gfx1036"},
      {"rocblas-lazy-library-missing", "Could not load …TensileLibrary_lazy_gfx1103.dat", "gfx1103"},
      {"hipblaslt-no-kernels-for-gfx", "rocblaslt error: Cannot read TensileLibrary_lazy_gfx1201.dat", "gfx1201"},
      {"hip-runtime-not-found", "The code execution cannot proceed because amdhip64_6.dll was not found", "amdhip64_6.dll"},
      {"hip-entry-point-missing", "The procedure entry point hipGraphCreate could not be located", "hipGraphCreate"},
      {"zluda-perf-library-not-loaded", "ZLUDA failed to load rocblas.dll", "rocblas.dll"},
      {"launcher-elevation-required",
       "Error: OsError { function: \"DetourCreateProcessWithDllsW\", error_code: 740, message: \"The requested operation requires "
       "elevation.\" }",
       "740"},
      {"launcher-program-not-found",
       "Error: OsError { function: \"DetourCreateProcessWithDllsW\", error_code: 2, message: \"The system cannot find the file "
       "specified.\" }",
       "error 2"},
      {"redirect-dll-init-failed",
       "An error occurred while displaying \"D: \\ zluda \\ ZLUDA \\ target \\ release \\ zluda redirect.Dll The dynamic link library "
       "(DLL) initialization routine failed\"",
       "32-bit"},
      {"cublas-not-supported", "CUBLAS_STATUS_NOT_SUPPORTED when calling cublasSgemm/cublasGemmEx", "CUBLAS_STATUS_NOT_SUPPORTED"},
      {"cudnn-miopen-failed", "GET was unable to find an engine to execute this computation", "MIOpen"},
      {"no-gpu-visible", "HIP API error = 0100 \"no ROCm-capable device is detected\"", "no GPU"},
      {"nvrtc-load-failed", "Error loading \"…torch\\lib\\caffe2_nvrtc.dll\"", "caffe2_nvrtc.dll"},
      {"miopen-database-path", "Cannot open database file:C:\\Users\\<non-ASCII>\\.miopen\\…", "non-ASCII"},
      {"antivirus-quarantine", "Trojan:Win32/Wacatac.B!ml", "Antivirus"},
  };
  return rows;
}

class KnownFailure : public ::testing::TestWithParam<RealMessage> {};

TEST_P(KnownFailure, RealMessageIsRecognisedAndExplained) {
  const auto& row = GetParam();
  const auto matches = explain::match_text(kb(), "some output before\n" + row.text + "\nsome output after\n");
  ASSERT_EQ(matches.size(), 1u) << row.text;
  EXPECT_EQ(matches[0].entry->id, row.id);
  EXPECT_EQ(matches[0].line_number, 2u);
  const auto e = explain::explain_match(matches[0], {});
  EXPECT_NE(e.title.find(row.title_has), std::string::npos) << e.title;
  for (const auto* text : {&e.title, &e.cause, &e.fix}) {
    EXPECT_EQ(text->find('{'), std::string::npos) << "unfilled placeholder: " << *text;
  }
  EXPECT_FALSE(e.source.empty());
}

INSTANTIATE_TEST_SUITE_P(Entries, KnownFailure, ::testing::ValuesIn(real_messages()), [](const auto& param_info) {
  std::string name = param_info.param.id;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(KnowledgeBase, BuiltInIsValidAndEveryEntryHasARealMessageTest) {
  auto loaded = explain::builtin_knowledge_base();
  ASSERT_TRUE(loaded) << loaded.error().message;
  std::set<std::string> tested;
  for (const auto& row : real_messages()) tested.insert(row.id);
  for (const auto& e : (*loaded)->entries) {
    EXPECT_TRUE(tested.count(e.id)) << e.id << " has no row in real_messages()";
    EXPECT_FALSE(e.source.empty()) << e.id;
  }
  EXPECT_EQ(tested.size(), (*loaded)->entries.size());
}

TEST(KnowledgeBase, NoEntryMatchesAnotherEntrysSample) {
  for (const auto& entry : kb().entries) {
    for (const auto& sample : entry.samples) {
      const auto matches = explain::match_text(kb(), sample);
      ASSERT_EQ(matches.size(), 1u) << sample;
      EXPECT_EQ(matches[0].entry->id, entry.id) << sample;
    }
  }
}

TEST(KnowledgeBase, ManifestFileIsTheOneCompiledIn) {
  auto text = platform::read_file(std::filesystem::path(ZCUDA_SOURCE_DIR) / "manifests" / "known-failures.json");
  ASSERT_TRUE(text) << text.error().message;
  auto parsed = explain::parse_knowledge_base(*text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->entries.size(), kb().entries.size());
}

std::string with_entry(const std::string& entry_json) { return R"({"format": 1, "entries": [)" + entry_json + "]}"; }

TEST(KnowledgeBase, ValidationRefusesBrokenEntries) {
  const std::string good =
      R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "s"})";
  ASSERT_TRUE(explain::parse_knowledge_base(with_entry(good)));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"id": "x", "title": "t", "patterns": ["(abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "s"})",
       "regular expression"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["xyz"], "cause": "c", "fix": "f", "facts": [], "source": "s"})",
       "do not match its sample"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": ["weather"], "source": "s"})",
       "unknown fact"},
      {R"({"id": "x", "title": "{captured}", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "s"})",
       "no group"},
      {R"({"id": "x", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": []})", "source"},
      {R"({"id": "X Y", "title": "t", "patterns": ["abc"], "samples": ["abc"], "cause": "c", "fix": "f", "facts": [], "source": "s"})", "kebab"},
      {good + "," + good, "twice"},
  };
  for (const auto& [entry, says] : bad) {
    auto parsed = explain::parse_knowledge_base(with_entry(entry));
    ASSERT_FALSE(parsed) << entry;
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
    EXPECT_NE(parsed.error().message.find(says), std::string::npos) << parsed.error().message;
  }
  EXPECT_FALSE(explain::parse_knowledge_base("not json"));
  EXPECT_FALSE(explain::parse_knowledge_base(R"({"format": 2, "entries": []})"));
}

TEST(Explain, UnknownTextMatchesNothing) {
  EXPECT_TRUE(explain::match_text(kb(), "Segmentation fault (core dumped)\nTraceback (most recent call last):\n").empty());
  EXPECT_TRUE(explain::match_text(kb(), "").empty());
}

TEST(Explain, SeveralFailuresInALogComeInTheirOrder) {
  const auto matches =
      explain::match_text(kb(), "ZLUDA failed to load MIOpen.dll\r\nlater\r\nNo CUDA GPUs are available\r\nZLUDA failed to load rocblas.dll\r\n");
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0].entry->id, "zluda-perf-library-not-loaded");
  EXPECT_EQ(matches[0].captured, "MIOpen.dll");
  EXPECT_EQ(matches[1].entry->id, "no-gpu-visible");
  EXPECT_EQ(matches[1].line_number, 3u);
}

detect::Profile machine_with_igpu_first() {
  detect::Profile p;
  p.os = platform::Os::windows;
  detect::Gpu igpu;
  igpu.name = "AMD Radeon 780M";
  igpu.vendor_id = detect::kVendorAmd;
  igpu.gfx = "gfx1103";
  igpu.integrated = true;
  igpu.hip_index = 0;
  detect::Gpu dgpu;
  dgpu.name = "AMD Radeon RX 7900 XTX";
  dgpu.vendor_id = detect::kVendorAmd;
  dgpu.gfx = "gfx1100";
  dgpu.hip_index = 1;
  p.gpus = {igpu, dgpu};
  detect::HipInstall hip;
  hip.root = "C:\\Program Files\\AMD\\ROCm\\6.4";
  hip.version = "6.4";
  hip.found_via = "HIP_PATH";
  hip.libraries = {{"rocblas", true, hip.root + "\\bin\\rocblas.dll"}, {"miopen", false, ""}};
  hip.rocblas_archs = {"gfx1100", "gfx1101"};
  hip.kernels["gfx1100"].rocblas = true;
  p.hip_installs = {hip};
  p.driver.adrenalin_version = "25.8.1";
  return p;
}

bool has_fact(const explain::Explanation& e, const std::string& part) {
  return std::any_of(e.facts.begin(), e.facts.end(), [&](const std::string& f) { return f.find(part) != std::string::npos; });
}

TEST(Explain, MessageGfxOfTheIntegratedGpuSaysWhichDeviceToSelect) {
  const auto matches = explain::match_text(kb(), "Could not load C:\\x\\TensileLibrary_lazy_gfx1103.dat");
  ASSERT_EQ(matches.size(), 1u);
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  const auto e = explain::explain_match(matches[0], machine);
  EXPECT_EQ(e.gfx, "gfx1103");
  EXPECT_NE(e.cause.find("gfx1103"), std::string::npos) << e.cause;
  EXPECT_TRUE(has_fact(e, "gfx1103 is this machine's integrated GPU")) << ::testing::PrintToString(e.facts);
  EXPECT_TRUE(has_fact(e, "HIP_VISIBLE_DEVICES=1")) << ::testing::PrintToString(e.facts);
  EXPECT_TRUE(has_fact(e, "has no kernels for gfx1103 (it has: gfx1100, gfx1101)")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, WithoutAGfxInTheMessageTheMachinesIsUsed) {
  const auto matches = explain::match_text(kb(), "CUBLAS_STATUS_NOT_SUPPORTED when calling cublasSgemm/cublasGemmEx");
  ASSERT_EQ(matches.size(), 1u);
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  const auto e = explain::explain_match(matches[0], machine);
  EXPECT_EQ(e.gfx, "gfx1100");  // the discrete GPU a run selects
  EXPECT_NE(e.fix.find("gfx1100"), std::string::npos) << e.fix;
  EXPECT_TRUE(has_fact(e, "hipBLASLt: not in the HIP SDK")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, MiopenAndDriverFactsAndTheUserFolder) {
  explain::MachineFacts machine;
  machine.profile = machine_with_igpu_first();
  machine.user_folder = "C:\\Users\\Jörg";
  auto e = explain::explain_match(explain::match_text(kb(), "ZLUDA failed to load MIOpen.dll").at(0), machine);
  EXPECT_TRUE(has_fact(e, "MIOpen: not in the HIP SDK at C:\\Program Files\\AMD\\ROCm\\6.4")) << ::testing::PrintToString(e.facts);
  e = explain::explain_match(explain::match_text(kb(), "The procedure entry point hipGraphCreate could not be located").at(0), machine);
  EXPECT_TRUE(has_fact(e, "Adrenalin 25.8.1")) << ::testing::PrintToString(e.facts);
  e = explain::explain_match(explain::match_text(kb(), "Cannot open database file:C:\\Users\\Jörg\\.miopen\\x").at(0), machine);
  EXPECT_TRUE(has_fact(e, "holds non-ASCII letters")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, AntivirusNamesTheQuarantinedFiles) {
  explain::MachineFacts machine;
  machine.quarantined = {"zluda.exe", "nvcuda.dll"};
  const auto e = explain::explain_match(explain::match_text(kb(), "Program:Win32/Wacapew.C!ml").at(0), machine);
  EXPECT_TRUE(has_fact(e, "zluda.exe, nvcuda.dll")) << ::testing::PrintToString(e.facts);
}

TEST(Explain, JsonAndTextCarryTheExplanation) {
  const auto e = explain::explain_match(explain::match_text(kb(), "No CUDA GPUs are available").at(0), {});
  const auto j = explain::to_json(e);
  EXPECT_EQ(j["id"], "no-gpu-visible");
  EXPECT_EQ(j["matched"]["line"], "No CUDA GPUs are available");
  EXPECT_TRUE(j["machine"].is_array());
  const auto text = explain::render_text(e);
  EXPECT_NE(text.find("[no-gpu-visible]"), std::string::npos);
  EXPECT_NE(text.find("fix:"), std::string::npos);
}

// docs/troubleshooting.md is generated from the knowledge base; the committed page must match it.
TEST(KnowledgeBase, TroubleshootingPageMatchesTheKnowledgeBase) {
  auto page = platform::read_file(std::filesystem::path(ZCUDA_SOURCE_DIR) / "docs" / "troubleshooting.md");
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(*page, explain::render_markdown(kb())) << "regenerate: zcuda explain --list --markdown > docs/troubleshooting.md";
}

}  // namespace
}  // namespace zcuda::test
