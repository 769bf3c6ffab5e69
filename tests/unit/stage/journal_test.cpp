#include <gtest/gtest.h>

#include <zcuda/stage/journal.hpp>

namespace zcuda::stage {
namespace {

Journal sample() {
  Journal j;
  j.operation = Operation::stage;
  j.root = "/app";
  j.runtime = "/rt";
  j.zcuda_version = "0.1.0";
  j.started = "2026-01-01T00:00:00Z";
  Step add;
  add.path = "nvml.dll";
  add.source = "/rt/nvml.dll";
  add.staged_sha256 = std::string(64, 'a');
  Step replace;
  replace.path = "lib/cublas64_12.dll";
  replace.replaces = true;
  replace.source = "/rt/cublas64_12.dll";
  replace.staged_sha256 = std::string(64, 'b');
  replace.original_sha256 = std::string(64, 'c');
  replace.backup = "backup/lib/cublas64_12.dll";
  replace.state = StepState::placed;
  replace.method = platform::PlaceMethod::hard_link;
  replace.staged_size = 12345;
  replace.staged_mtime_ns = 1'700'000'000'123'456'789;
  j.steps = {add, replace};
  return j;
}

TEST(Journal, RoundTrips) {
  auto parsed = parse_journal(to_json_text(sample()));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(to_json_text(*parsed), to_json_text(sample()));
  EXPECT_EQ(parsed->steps[1].state, StepState::placed);
  EXPECT_EQ(*parsed->steps[1].backup, "backup/lib/cublas64_12.dll");
  EXPECT_EQ(parsed->steps[1].staged_size, 12345u);
  EXPECT_EQ(parsed->steps[1].staged_mtime_ns, 1'700'000'000'123'456'789);
  EXPECT_FALSE(parsed->steps[0].staged_size);
  EXPECT_FALSE(parsed->steps[0].staged_mtime_ns);
}

TEST(Journal, StepsWithoutIdentityFieldsFromOlderJournalsParse) {
  // Journals written before staged_size/staged_mtime_ns existed: those steps are hashed.
  const std::string text = R"({"schema": 1, "operation": "stage", "complete": true, "steps": [
    {"path": "nvml.dll", "action": "add", "source": "/rt/nvml.dll", "method": "hardlink", "original_sha256": null,
     "staged_sha256": "aa", "backup": null, "state": "placed"}]})";
  auto parsed = parse_journal(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->steps.size(), 1u);
  EXPECT_FALSE(parsed->steps[0].staged_size);
  EXPECT_FALSE(parsed->steps[0].staged_mtime_ns);
}

TEST(Journal, PathsLeavingTheFolderAreRejected) {
  for (const char* bad : {"../outside.dll", "/etc/passwd", "lib/../../x"}) {
    Journal j = sample();
    j.steps[0].path = bad;
    auto parsed = parse_journal(to_json_text(j));
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
  }
  Journal j = sample();
  j.steps[1].backup = "../../home/user/.bashrc";
  EXPECT_FALSE(parse_journal(to_json_text(j)));
}

TEST(Journal, DamagedJournalsAreErrorsWithAHint) {
  for (const char* text : {"", "{", "[]", R"({"schema": 2})", R"({"schema": 1, "operation": "stage"})"}) {
    auto parsed = parse_journal(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_FALSE(parsed.error().hint.empty());
  }
}

// Operation and method are enums read from fixed words: an unknown word is damage, named.
TEST(Journal, UnknownOperationsAndMethodsAreNamed) {
  const std::string step = R"({"path": "nvml.dll", "action": "add", "source": "/rt/nvml.dll", "method": "METHOD", "original_sha256": null,
     "staged_sha256": "aa", "backup": null, "state": "placed"})";
  auto journal = [&](const std::string& operation, const std::string& method) {
    std::string text = R"({"schema": 1, "operation": ")" + operation + R"(", "complete": false, "steps": [)" + step + "]}";
    return text.replace(text.find("METHOD"), 6, method);
  };
  auto good = parse_journal(journal("unstage", "copy"));
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(good->operation, Operation::unstage);
  EXPECT_EQ(good->steps[0].method, platform::PlaceMethod::copy);
  auto operation = parse_journal(journal("restage", "copy"));
  ASSERT_FALSE(operation);
  EXPECT_NE(operation.error().message.find("unknown operation restage"), std::string::npos) << operation.error().message;
  auto method = parse_journal(journal("stage", "symlink"));
  ASSERT_FALSE(method);
  EXPECT_NE(method.error().message.find("unknown method symlink"), std::string::npos) << method.error().message;
}

}  // namespace
}  // namespace zcuda::stage
