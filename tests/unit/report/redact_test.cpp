#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/report/redact.hpp>

namespace zcuda::report {
namespace {

platform::SystemInfo machine() {
  platform::SystemInfo info;
  info.user_name = "jdoe";
  info.host_name = "WORKSTATION-7";
  info.home_folder = "C:\\Users\\jdoe";
  return info;
}

TEST(Redact, PlantedSecretsNeverSurvive) {
  Redactor r = Redactor::for_machine(machine(), {});
  const std::string text =
      "user jdoe on WORKSTATION-7 (workstation-7.lan) at C:\\Users\\jdoe\\app and C:/Users/jdoe/x and C:\\\\Users\\\\jdoe\\\\json\n"
      "proxy https://alice:s3cr3tP4ss@proxy.corp:8080/ mirror https://dl.example.com/z.zip?X-Amz-Signature=abcdef123456&x=1&token=tok999\n"
      "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 HF=hf_ABCDEFGHIJKLMNOPQRSTUVWXYZab aws AKIAABCDEFGHIJKLMNOP\n"
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk password=hunter2 api_key: 'k-123'\n"
      "mail jane.doe@example.org";
  std::string out = r.apply(text);
  for (const char* secret : {"jdoe", "WORKSTATION-7", "workstation-7", "alice", "s3cr3tP4ss", "abcdef123456", "tok999", "ghp_abcdef", "hf_ABCDEF",
                             "AKIAABCDEFGHIJKLMNOP", "eyJhbGci", "hunter2", "k-123", "jane.doe", "example.org"}) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " survived in:\n" << out;
  }
  for (const char* kept : {"<user>", "<host>", "<home>", "proxy.corp:8080", "dl.example.com/z.zip", "x=1", "<email>"}) {
    EXPECT_NE(out.find(kept), std::string::npos) << kept << " missing in:\n" << out;
  }
}

TEST(Redact, DigestsAndVersionsStay) {
  Redactor r = Redactor::for_machine(machine(), {});
  const std::string digest = "e2959ed17c8ddae6bf2bf76cf3a7348f577a2548754685d776389df2220e5d9a";
  EXPECT_EQ(r.apply(digest), digest);
  EXPECT_EQ(r.apply("HIP SDK 6.4 gfx1200 v6-preview.69"), "HIP SDK 6.4 gfx1200 v6-preview.69");
}

TEST(Redact, ShortHostNamesMatchExactly) {
  platform::SystemInfo info;
  info.host_name = "vm";
  Redactor r = Redactor::for_machine(info, {});
  EXPECT_EQ(r.apply("host vm; a VM or container"), "host <host>; a VM or container");
}

TEST(Redact, JsonValuesAreRedactedKeysStay) {
  Redactor r = Redactor::for_machine(machine(), {});
  nlohmann::json j = {{"path", "C:\\Users\\jdoe\\x"}, {"nested", {{"list", {"jdoe", 3, true}}}}};
  r.apply(j);
  EXPECT_EQ(j["path"], "<home>\\x");
  EXPECT_EQ(j["nested"]["list"][0], "<user>");
  EXPECT_EQ(j["nested"]["list"][1], 3);
}

// The report may hold paths of other accounts (a shared machine, a container run as root, a
// profile folder named otherwise than the user): every home folder and the account variables'
// values are private, whoever zcuda runs as.
TEST(Redact, EveryUsersHomeAndTheAccountVariablesArePrivate) {
  platform::SystemInfo info;
  info.user_name = "svc";
  info.home_folder = "/var/lib/svc";
  const platform::Environment env = {{"USER", "alice"}, {"LOGNAME", "alice2"}, {"USERNAME", "Bob Builder"}, {"USERPROFILE", "D:\\Profiles\\bb-7"}};
  Redactor r = Redactor::for_machine(info, env);
  const std::string text =
      "/home/carol/.venv/bin/python and /Users/dave/lib and C:\\Users\\erin\\AppData and c:/users/frank/x and "
      "C:\\\\Users\\\\grace\\\\json and C:\\Users\\Heidi Klum\\Documents and /home/ivan and D:\\Profiles\\bb-7\\zluda\n"
      "started by alice (alice2) for Bob Builder; shared: C:\\Users\\Public\\Desktop /Users/Shared/x";
  const std::string out = r.apply(text);
  for (const char* secret : {"carol", "dave", "erin", "frank", "grace", "Heidi", "Klum", "ivan", "bb-7", "alice", "Bob Builder"}) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " survived in:\n" << out;
  }
  for (const char* kept : {"<home>/.venv/bin/python", "<home>/lib", "<home>\\AppData", "<home>/x", "<home>\\\\json", "<home>\\Documents",
                           "<home>\\zluda", "by <user> (<user>) for <user>", "C:\\Users\\Public\\Desktop", "/Users/Shared/x"}) {
    EXPECT_NE(out.find(kept), std::string::npos) << kept << " missing in:\n" << out;
  }
  nlohmann::json j = {{"path", "/home/zed/models"}};
  r.apply(j);
  EXPECT_EQ(j["path"], "<home>/models");
}

TEST(Redact, DisabledKeepsEverything) {
  Redactor r = Redactor::disabled();
  EXPECT_EQ(r.apply("password=hunter2"), "password=hunter2");
}

}  // namespace
}  // namespace zcuda::report
