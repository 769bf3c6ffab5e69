// install --url URL --sha256 HEX: an archive the user vouches for, through the same fetch,
// digest check, safe extraction and rename as a pinned one, from a loopback server.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/install/runtime_files.hpp>
#include <zcuda/launch/runtime.hpp>

#include "support/archive_builder.hpp"
#include "support/http_server.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::install {
namespace {

namespace fs = std::filesystem;

struct VouchedScene {
  test::TempDir dir;
  home::Home home;
  std::string bytes;
  std::string sha256;
  test::HttpServer server;

  // `top`: the archive's one top folder (the release archives' is zluda/).
  explicit VouchedScene(const std::string& top = "zluda") {
    home = home::Home{dir / "home", dir / "home" / "cache", dir / "home" / "state", dir / "home" / "logs", home::ChosenBy::flag};
    const fs::path archive = dir / "ZLUDA-linux-test.tar.gz";
    test::write_archive(archive, test::ArchiveType::tar_gz,
                        {test::dir(top + "/"), test::file(top + "/libcuda.so.1", "driver bytes"), test::file(top + "/libcublas.so.12", "cublas")});
    bytes = test::read_file(archive);
    sha256 = sha256_file(archive).value();
    test::HttpResource r;
    r.body = bytes;
    server.serve("/dl/ZLUDA-linux-test.tar.gz", r);
  }

  Result<Report> install(const std::string& digest, const std::string& name = {}) const {
    auto plan = plan_vouched({server.url("/dl/ZLUDA-linux-test.tar.gz"), digest, name}, home);
    if (!plan) return std::unexpected(plan.error());
    Options options;
    options.fetch.max_attempts_per_source = 1;
    return run(*plan, home, options);
  }

  std::vector<std::string> names_under(const fs::path& folder) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(folder, ec)) out.push_back(e.path().lexically_relative(folder).generic_string());
    return out;
  }
};

TEST(Vouched, InstallsWithAReceiptMarkedUserVouchedAndItsFamily) {
  VouchedScene s;
  auto report = s.install(s.sha256);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->outcomes.size(), 1u);
  const auto& out = report->outcomes[0];
  ASSERT_EQ(out.state, State::installed) << (out.error ? out.error->message : "");
  EXPECT_EQ(out.version, "ZLUDA-linux-test");  // the file name's stem
  const fs::path dir = s.home.installs() / "zluda" / "ZLUDA-linux-test";
  EXPECT_EQ(test::read_file(dir / "zluda" / "libcuda.so.1"), "driver bytes");

  ASSERT_TRUE(record_family(s.home, "ZLUDA-linux-test", platform::Os::linux));
  auto receipt = read_receipt(s.home, "zluda", "ZLUDA-linux-test");
  ASSERT_TRUE(receipt);
  EXPECT_EQ(receipt->sha256, s.sha256);
  EXPECT_EQ(receipt->entry.at("user_vouched"), true);
  EXPECT_EQ(receipt->family.at("family"), "unknown");  // stand-in bytes tell no family
  EXPECT_FALSE(receipt->adopted_dir);

  // Usable by name like a pinned install.
  auto located = launch::locate_runtime_spec(std::string("ZLUDA-linux-test"), s.home);
  ASSERT_TRUE(located && *located);
  EXPECT_EQ((*located)->dir, dir / "zluda");
  // Again: already installed, nothing fetched.
  auto again = s.install(s.sha256);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->outcomes[0].state, State::already_installed);
}

// A build packed under a top folder of its own name: launch finds its driver there, as the
// family record does.
TEST(Vouched, AnArchivesOwnTopFolderIsWhereTheRuntimeIs) {
  VouchedScene s("ZLUDA-custom-build");
  auto report = s.install(s.sha256, "custom");
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->outcomes[0].state, State::installed);
  const fs::path dir = s.home.installs() / "zluda" / "custom";
  EXPECT_EQ(runtime_files_dir(dir), dir / "ZLUDA-custom-build");
  auto located = launch::locate_runtime_spec(std::string("custom"), s.home);
  ASSERT_TRUE(located) << located.error().message;
  ASSERT_TRUE(*located);
  EXPECT_EQ((*located)->dir, dir / "ZLUDA-custom-build");
  // A second folder beside it makes the choice ambiguous: no folder is guessed.
  fs::create_directories(dir / "docs");
  EXPECT_FALSE(runtime_files_dir(dir));
}

TEST(Vouched, AWrongDigestIsRefusedAndLeavesNothing) {
  VouchedScene s;
  const std::string wrong(64, 'a');
  auto report = s.install(wrong, "mine");
  ASSERT_TRUE(report) << report.error().message;
  const auto& out = report->outcomes[0];
  ASSERT_EQ(out.state, State::failed);
  ASSERT_TRUE(report->first_error);
  EXPECT_EQ(report->first_error->kind, ErrorKind::integrity) << report->first_error->message;
  EXPECT_FALSE(fs::exists(s.home.installs() / "zluda" / "mine"));
  EXPECT_FALSE(fs::exists(s.home.installs() / "zluda" / "mine.receipt.json"));
  for (const auto& name : s.names_under(s.home.installs() / "zluda")) ADD_FAILURE() << "left in installs/zluda: " << name;
  for (const auto& name : s.names_under(s.home.cache)) EXPECT_EQ(name.find(wrong), std::string::npos) << "left in the cache: " << name;
}

TEST(Vouched, MalformedDigestUnknownArchiveAndTakenNamesAreUsageErrors) {
  VouchedScene s;
  for (const std::string& bad : std::vector<std::string>{"abc", std::string(63, 'a'), std::string(64, 'g'), std::string(65, '0')}) {
    auto plan = plan_vouched({s.server.url("/dl/ZLUDA-linux-test.tar.gz"), bad, ""}, s.home);
    ASSERT_FALSE(plan) << bad;
    EXPECT_EQ(plan.error().kind, ErrorKind::usage);
  }
  // Upper case is the same digest.
  std::string upper = s.sha256;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto ok = plan_vouched({s.server.url("/dl/ZLUDA-linux-test.tar.gz"), upper, ""}, s.home);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->items[0].artifact.sha256, s.sha256);
  EXPECT_EQ(ok->items[0].artifact.archive, manifest::ArchiveKind::tar_gz);

  auto no_type = plan_vouched({s.server.url("/dl/ZLUDA.exe"), s.sha256, ""}, s.home);
  ASSERT_FALSE(no_type);
  EXPECT_EQ(no_type.error().kind, ErrorKind::usage);
  auto reserved = plan_vouched({s.server.url("/dl/x.zip"), s.sha256, "current"}, s.home);
  ASSERT_FALSE(reserved);
  EXPECT_EQ(reserved.error().kind, ErrorKind::usage);

  ASSERT_TRUE(s.install(s.sha256, "taken"));
  auto other_bytes = plan_vouched({s.server.url("/dl/x.zip"), std::string(64, 'b'), "taken"}, s.home);
  ASSERT_FALSE(other_bytes);
  EXPECT_EQ(other_bytes.error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace zcuda::install
