// file:// URLs and the offline folder: verified like downloads and copied into the cache.
#include <gtest/gtest.h>

#include <zcuda/fetch/fetch.hpp>

#include "fetch_test_util.hpp"
#include "support/file_url.hpp"
#include "support/http_server.hpp"

namespace zcuda::fetch::testing {
namespace {

namespace fs = std::filesystem;

TEST_F(FetchTest, FileUrlIsVerifiedAndCopied) {
  std::string body = make_body(2'500'000);
  fs::path source = dir / "mirror dir" / "a b.zip";
  test::write_file(source, body);
  std::string url = test::file_url(dir / "mirror dir" / "a b.zip");
  auto got = fetch(request_for(body, {url}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->source, url);
  EXPECT_EQ(test::read_file(got->file), body);
  EXPECT_TRUE(fs::exists(source)) << "the source stays";
}

TEST_F(FetchTest, MissingFileUrlFallsBackToTheNextMirror) {
  test::HttpServer server;
  std::string body = make_body(1000);
  server.serve("/a", {.body = body});
  auto got = fetch(request_for(body, {test::file_url(dir / "absent.zip"), server.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->source, server.url("/a"));
}

TEST_F(FetchTest, FileUrlWithOtherBytesIsRefused) {
  std::string body = make_body(1000);
  test::write_file(dir / "a.zip", make_body(1000, 4));
  auto request = request_for(body, {test::file_url(dir / "a.zip")});
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_FALSE(fs::exists(cache.verified_path(request.sha256)));
  EXPECT_FALSE(fs::exists(cache.partial_path(request.sha256)));
}

TEST_F(FetchTest, OfflineFolderFindsTheFileByName) {
  std::string body = make_body(5000);
  test::write_file(dir / "offline" / "artifact.zip", body);
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  // The URL is never contacted: nothing listens on port 1.
  auto got = fetch(request_for(body, {"http://127.0.0.1:1/a"}), cache, options);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(test::read_file(got->file), body);
  EXPECT_EQ(got->source, (dir / "offline" / "artifact.zip").string());
}

TEST_F(FetchTest, OfflineFolderFindsTheFileByDigest) {
  std::string body = make_body(5000);
  auto request = request_for(body, {});
  test::write_file(dir / "offline" / request.sha256, body);
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  auto got = fetch(request, cache, options);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, OfflineFileWithOtherBytesIsNeverTrusted) {
  std::string body = make_body(5000);
  test::write_file(dir / "offline" / "artifact.zip", make_body(5000, 8));
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  auto request = request_for(body, {});
  auto got = fetch(request, cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_NE(got.error().message.find("artifact.zip"), std::string::npos) << got.error().message;
  EXPECT_FALSE(fs::exists(cache.verified_path(request.sha256)));
}

TEST_F(FetchTest, TruncatedOfflineFileIsIncompleteNotAMismatch) {
  std::string body = make_body(5000);
  test::write_file(dir / "offline" / "artifact.zip", body.substr(0, 3000));
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  auto got = fetch(request_for(body, {}), cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::incomplete) << got.error().message;
  EXPECT_NE(got.error().message.find("incomplete: 3000 of 5000 bytes"), std::string::npos) << got.error().message;
}

TEST_F(FetchTest, OfflineFileWithThePinnedDigestButAnotherSizeSaysTheManifestIsWrong) {
  std::string body = make_body(5000);
  test::write_file(dir / "offline" / "artifact.zip", body);
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  for (std::uint64_t pinned : {4000u, 6000u}) {
    auto request = request_for(body, {});
    request.size = pinned;
    auto got = fetch(request, cache, options);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().kind, ErrorKind::invalid_input) << got.error().message;
    EXPECT_NE(got.error().message.find("manifest"), std::string::npos) << got.error().message;
    EXPECT_NE(got.error().message.find(fmt::format("{} bytes", pinned)), std::string::npos) << got.error().message;
    EXPECT_NE(got.error().message.find("5000 bytes"), std::string::npos) << got.error().message;
  }
}

TEST_F(FetchTest, OfflineFolderWithoutTheFileSaysWhereItLooked) {
  fs::create_directories(dir / "offline");
  auto options = fast_options();
  options.offline_dir = dir / "offline";
  auto request = request_for("x", {});
  auto got = fetch(request, cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::not_found);
  EXPECT_NE(got.error().message.find("artifact.zip"), std::string::npos) << got.error().message;
  EXPECT_NE(got.error().message.find(request.sha256), std::string::npos) << got.error().message;
  EXPECT_FALSE(got.error().hint.empty());
}

}  // namespace
}  // namespace zcuda::fetch::testing
