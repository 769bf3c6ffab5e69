// HTTPS against a loopback server with a certificate the test makes: trusted through --cacert
// or CURL_CA_BUNDLE, refused otherwise.
#include <gtest/gtest.h>

#include <zcuda/fetch/fetch.hpp>

#include "fetch_test_util.hpp"
#include "support/http_server.hpp"

namespace zcuda::fetch::testing {
namespace {

class TlsFetchTest : public FetchTest {
 protected:
  void SetUp() override {
#ifdef _WIN32
    GTEST_SKIP() << "certificate trust on Windows is Schannel's and the Windows certificate store's, which Wine does not "
                    "reproduce (its Schannel accepted an untrusted certificate); tested with OpenSSL in the Linux build";
#endif
    FetchTest::SetUp();
    certs_ = test::make_self_signed_cert(dir.path());
    server_ = std::make_unique<test::HttpServer>(certs_);
    body_ = make_body(100'000);
    server_->serve("/a", {.body = body_, .etag = "\"t\""});
  }
  test::TlsFiles certs_;
  std::unique_ptr<test::HttpServer> server_;
  std::string body_;
};

TEST_F(TlsFetchTest, TrustedThroughCaBundle) {
  auto options = fast_options();
  options.ca_bundle = certs_.cert;
  auto got = fetch(request_for(body_, {server_->url("/a")}), cache, options);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->source.starts_with("https://"));
  EXPECT_EQ(test::read_file(got->file), body_);
}

TEST_F(TlsFetchTest, ResumesOverHttps) {
  auto options = fast_options();
  options.ca_bundle = certs_.cert;
  server_->push_fault("/a", {.cut_after = 30'000});
  auto got = fetch(request_for(body_, {server_->url("/a")}), cache, options);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(server_->count("/a"), 2u);
  EXPECT_EQ(server_->requests_for("/a")[1].header("range"), "bytes=30000-");
}

TEST_F(TlsFetchTest, TrustedThroughCurlCaBundleVariable) {
  auto got = [&] {
    test::ScopedEnv bundle("CURL_CA_BUNDLE", certs_.cert.string());
    return fetch(request_for(body_, {server_->url("/a")}), cache, fast_options());
  }();
  ASSERT_TRUE(got) << got.error().message;
}

TEST_F(TlsFetchTest, UntrustedCertificateIsRefusedWithAHint) {
  auto request = request_for(body_, {server_->url("/a")});
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::network);
  EXPECT_NE(got.error().message.find("TLS certificate"), std::string::npos) << got.error().message;
  EXPECT_NE(got.error().hint.find("--cacert"), std::string::npos) << got.error().hint;
  EXPECT_EQ(server_->count("/a"), 0u) << "no request may be sent over an unverified connection";
  EXPECT_FALSE(std::filesystem::exists(cache.partial_path(request.sha256)));
}

TEST_F(TlsFetchTest, MissingCaBundleFileIsNamed) {
  auto options = fast_options();
  options.ca_bundle = dir / "nope.pem";
  auto got = fetch(request_for(body_, {server_->url("/a")}), cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::not_found);
  EXPECT_NE(got.error().message.find("nope.pem"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::fetch::testing
