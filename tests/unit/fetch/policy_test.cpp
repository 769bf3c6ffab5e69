// The pure parts of fetch: retry policy, TLS options, hashing, rate and progress text.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include <zcuda/fetch/fetch.hpp>
#include <zcuda/fetch/rate.hpp>
#include <zcuda/fetch/retry.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/ui/progress.hpp>

#include "fetch_test_util.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::fetch {
namespace {

using namespace std::chrono_literals;

TEST(RetryPolicy, TransientStatusesAreRetriedOthersMoveOn) {
  for (long status : {408L, 429L, 500L, 502L, 503L, 504L}) {
    EXPECT_EQ(classify_http_status(status), Verdict::retry) << status;
  }
  for (long status : {400L, 401L, 403L, 404L, 410L, 501L, 505L}) {
    EXPECT_EQ(classify_http_status(status), Verdict::next_source) << status;
  }
}

TEST(RetryPolicy, TransportFailures) {
  for (CURLcode code :
       {CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_COULDNT_RESOLVE_HOST}) {
    EXPECT_EQ(classify_transport(code), Verdict::retry) << code;
  }
  for (CURLcode code : {CURLE_PEER_FAILED_VERIFICATION, CURLE_TOO_MANY_REDIRECTS, CURLE_UNSUPPORTED_PROTOCOL}) {
    EXPECT_EQ(classify_transport(code), Verdict::next_source) << code;
  }
  EXPECT_TRUE(is_tls_verification_failure(CURLE_PEER_FAILED_VERIFICATION));
  EXPECT_FALSE(is_tls_verification_failure(CURLE_COULDNT_CONNECT));
}

TEST(RetryPolicy, BackoffGrowsIsCappedAndJittered) {
  EXPECT_EQ(backoff_delay(1, 100ms, 1000ms, std::nullopt, 60s, 0.0), 50ms);
  EXPECT_EQ(backoff_delay(1, 100ms, 1000ms, std::nullopt, 60s, 0.999), 99ms);
  EXPECT_EQ(backoff_delay(3, 100ms, 1000ms, std::nullopt, 60s, 0.0), 200ms);
  // Far past the cap: never more than max, never less than half of it.
  for (double r : {0.0, 0.5, 0.99}) {
    auto d = backoff_delay(40, 100ms, 1000ms, std::nullopt, 60s, r);
    EXPECT_GE(d, 500ms);
    EXPECT_LE(d, 1000ms);
  }
}

TEST(RetryPolicy, RetryAfterIsHonouredUpToItsCap) {
  EXPECT_EQ(backoff_delay(1, 100ms, 1000ms, 3s, 60s, 0.0), 3000ms);
  EXPECT_EQ(backoff_delay(1, 100ms, 1000ms, 3600s, 120s, 0.0), 120000ms);
  // A Retry-After shorter than the backoff does not shorten it.
  EXPECT_EQ(backoff_delay(5, 1000ms, 30000ms, 1s, 60s, 0.0), 8000ms);
}

TEST(TlsOptions, NativeCaOnlyForOpenSslOnWindows) {
  EXPECT_EQ(ssl_options_for("OpenSSL/3.0.13", true), CURLSSLOPT_NATIVE_CA);
  EXPECT_EQ(ssl_options_for("Schannel", true), 0);
  EXPECT_EQ(ssl_options_for("OpenSSL/3.0.13", false), 0);
}

// The libcurl zcuda is linked with: Schannel (Windows' TLS and certificate store) on Windows,
// OpenSSL with the distribution's CA bundle on Linux; both with zlib for compressed responses.
TEST(TlsOptions, LinkedLibcurlUsesThePlatformsTls) {
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  ASSERT_NE(info->ssl_version, nullptr);
#ifdef _WIN32
  EXPECT_EQ(std::string(info->ssl_version).rfind("Schannel", 0), 0u) << info->ssl_version;
#else
  EXPECT_EQ(std::string(info->ssl_version).rfind("OpenSSL", 0), 0u) << info->ssl_version;
#endif
  EXPECT_NE(info->libz_version, nullptr);
  EXPECT_NE(info->features & CURL_VERSION_SSL, 0);
}

TEST(Sha256, KnownVectorsAndStreaming) {
  Sha256 empty;
  EXPECT_EQ(empty.hex_digest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.update("a", 1);
  abc.update("bc", 2);
  EXPECT_EQ(abc.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Reading the digest does not end the stream; reset starts over.
  abc.update("d", 1);
  EXPECT_EQ(abc.hex_digest(), testing::digest_of("abcd"));
  abc.reset();
  EXPECT_EQ(abc.hex_digest(), empty.hex_digest());
  EXPECT_TRUE(is_sha256_hex(empty.hex_digest()));
  EXPECT_FALSE(is_sha256_hex("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"));
  EXPECT_FALSE(is_sha256_hex("abc"));
}

TEST(Sha256, FileDigestMatchesOneShot) {
  test::TempDir dir;
  std::string body = testing::make_body(3u << 20, 7);  // spans several read buffers
  test::write_file(dir / "f", body);
  auto digest = sha256_file(dir / "f");
  ASSERT_TRUE(digest) << digest.error().message;
  EXPECT_EQ(*digest, testing::digest_of(body));
  auto missing = sha256_file(dir / "missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
}

TEST(RateMeter, FollowsASteadyRate) {
  RateMeter meter;
  auto t = RateMeter::Clock::time_point{};
  std::uint64_t received = 0;
  for (int i = 0; i < 50; ++i) {
    meter.update(received, t);
    received += 1'000'000;
    t += 100ms;
  }
  EXPECT_NEAR(meter.rate(), 10'000'000.0, 100'000.0);
}

TEST(ProgressText, ShowsBytesPercentRateAndEta) {
  auto eta = ui::eta_seconds(50, 100, 10);
  ASSERT_TRUE(eta);
  EXPECT_DOUBLE_EQ(*eta, 5.0);
  EXPECT_FALSE(ui::eta_seconds(50, std::nullopt, 10));
  EXPECT_FALSE(ui::eta_seconds(50, 100, 0));

  std::string line = ui::format_progress("libtorch.zip", 512u << 20, 1024u << 20, 8u << 20, 100);
  EXPECT_NE(line.find("libtorch.zip"), std::string::npos) << line;
  EXPECT_NE(line.find("512.0 MiB / 1.0 GiB"), std::string::npos) << line;
  EXPECT_NE(line.find("50%"), std::string::npos) << line;
  EXPECT_NE(line.find("8.0 MiB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 1 min 04 s"), std::string::npos) << line;
  std::string narrow = ui::format_progress(std::string(200, 'x'), 1, 2, 1, 60);
  EXPECT_LT(narrow.size(), 60u) << narrow;
}

TEST(ProgressText, NothingIsDrawnWhenDisabled) {
  test::TempDir dir;
  std::FILE* file = std::fopen((dir / "out").string().c_str(), "w");
  ASSERT_NE(file, nullptr);
  {
    ui::ProgressLine line(file);  // a regular file is not a terminal
    EXPECT_FALSE(line.enabled());
    line.update("x", 1, 2, 3, true);
  }
  {
    ui::ProgressLine forced(file, true);
    forced.update("x", 1, 2, 3, true);
  }
  std::fclose(file);
  std::string written = test::read_file(dir / "out");
  EXPECT_EQ(written.find("\r"), 0u) << "only the forced line draws";
  EXPECT_NE(written.find("\x1b[K"), std::string::npos);
}

}  // namespace
}  // namespace zcuda::fetch
