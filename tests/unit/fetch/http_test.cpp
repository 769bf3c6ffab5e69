// Downloads against a real HTTP server on loopback: success, cache, resume, faults, retries.

#include <atomic>
#include <regex>

#include <gtest/gtest.h>

#include <zcuda/fetch/fetch.hpp>

#include "fetch_test_util.hpp"
#include "support/file_url.hpp"
#include "support/file_size_limit.hpp"
#include "support/http_server.hpp"

namespace zcuda::fetch::testing {
namespace {

namespace fs = std::filesystem;
using test::HttpFault;
using test::HttpResource;
using test::HttpServer;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(FetchTest, DownloadsVerifiesAndStoresUnderTheDigest) {
  HttpServer server;
  std::string body = make_body(300'000);
  server.serve("/a.zip", {.body = body, .etag = "\"v1\""});
  auto request = request_for(body, {server.url("/a.zip")});
  auto options = fast_options();
  std::optional<Progress> last;
  options.on_progress = [&](const Progress& p) { last = p; };

  auto got = fetch(request, cache, options);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->file, cache.verified_path(request.sha256));
  EXPECT_EQ(test::read_file(got->file), body);
  EXPECT_FALSE(got->from_cache);
  EXPECT_EQ(got->bytes_transferred, body.size());
  EXPECT_EQ(got->source, server.url("/a.zip"));
  EXPECT_FALSE(fs::exists(cache.partial_path(request.sha256)));
  EXPECT_FALSE(fs::exists(cache.partial_meta_path(request.sha256)));
  ASSERT_TRUE(last);
  EXPECT_EQ(last->received, body.size());
  EXPECT_EQ(last->total, body.size());
  EXPECT_EQ(server.requests()[0].header("range"), "");
}

TEST_F(FetchTest, CacheHitTransfersNothing) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  ASSERT_TRUE(fetch(request, cache, fast_options()));
  auto again = fetch(request, cache, fast_options());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->bytes_transferred, 0u);
  EXPECT_EQ(server.count("/a"), 1u);
}

TEST_F(FetchTest, DamagedCacheFileIsDeletedAndFetchedAgain) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  test::write_file(cache.verified_path(request.sha256), make_body(10'000, 99));  // same size, other bytes
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_FALSE(got->from_cache);
  EXPECT_EQ(server.count("/a"), 1u);
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, CutConnectionIsResumedWithRangeAndIfRange) {
  HttpServer server;
  std::string body = make_body(300'000);
  server.serve("/a", {.body = body, .etag = "\"v1\""});
  server.push_fault("/a", {.cut_after = 100'000});
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].header("range"), "bytes=100000-");
  EXPECT_EQ(requests[1].header("if-range"), "\"v1\"");
  EXPECT_EQ(got->bytes_transferred, body.size());
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, ResetConnectionIsRetried) {
  HttpServer server;
  std::string body = make_body(200'000);
  server.serve("/a", {.body = body, .last_modified = "Tue, 01 Dec 2026 10:00:00 GMT"});
  server.push_fault("/a", {.cut_after = 70'000, .reset = true});
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(test::read_file(got->file), body);
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  // Without an ETag the Last-Modified date validates the resume; a reset may lose buffered bytes,
  // so only check that a range was asked for.
  EXPECT_TRUE(requests[1].header("range").starts_with("bytes=")) << requests[1].header("range");
  EXPECT_EQ(requests[1].header("if-range"), "Tue, 01 Dec 2026 10:00:00 GMT");
}

TEST_F(FetchTest, ShortBodyIsIncompleteNotAMismatchAndTheNextRunResumes) {
  HttpServer server;
  std::string body = make_body(300'000);
  server.serve("/a", {.body = body, .etag = "\"v1\""});
  server.push_fault("/a", {.cut_after = 100'000});  // full Content-Length, fewer bytes
  auto options = fast_options();
  options.max_attempts_per_source = 1;
  auto request = request_for(body, {server.url("/a")});
  auto first = fetch(request, cache, options);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().kind, ErrorKind::incomplete);
  EXPECT_TRUE(contains(first.error().message, "got 100000 of 300000 bytes")) << first.error().message;
  EXPECT_TRUE(contains(first.error().message, server.url("/a"))) << first.error().message;
  EXPECT_EQ(fs::file_size(cache.partial_path(request.sha256)), 100'000u);

  // A new run re-hashes the 100000 bytes on disk and asks only for the rest.
  auto second = fetch(request, cache, fast_options());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->resumed_from, 100'000u);
  EXPECT_EQ(second->bytes_transferred, 200'000u);
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].header("range"), "bytes=100000-");
  EXPECT_EQ(test::read_file(second->file), body);
}

TEST_F(FetchTest, ServerIgnoringRangesGetsAFreshDownload) {
  HttpServer server;
  std::string body = make_body(200'000);
  server.serve("/a", {.body = body, .etag = "\"v1\""});
  server.push_fault("/a", {.cut_after = 50'000});
  auto options = fast_options();
  options.max_attempts_per_source = 1;
  auto request = request_for(body, {server.url("/a")});
  ASSERT_FALSE(fetch(request, cache, options));

  server.serve("/a", {.body = body, .etag = "\"v1\"", .ranges = false});
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.requests_for("/a")[1].header("range"), "bytes=50000-");
  EXPECT_EQ(got->bytes_transferred, body.size());
  EXPECT_EQ(got->resumed_from, 0u);
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, ChangedValidatorMakesTheServerSendTheWholeFile) {
  HttpServer server;
  std::string body = make_body(200'000);
  server.serve("/a", {.body = body, .etag = "\"v1\""});
  server.push_fault("/a", {.cut_after = 50'000});
  auto options = fast_options();
  options.max_attempts_per_source = 1;
  auto request = request_for(body, {server.url("/a")});
  ASSERT_FALSE(fetch(request, cache, options));

  server.serve("/a", {.body = body, .etag = "\"v2\""});  // If-Range "v1" no longer matches: 200
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  auto second = server.requests_for("/a")[1];
  EXPECT_EQ(second.header("if-range"), "\"v1\"");
  EXPECT_EQ(got->bytes_transferred, body.size());
}

TEST_F(FetchTest, RangeNotSatisfiableStartsAgainFromZero) {
  HttpServer server;
  std::string body = make_body(20'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")}, /*pin_size=*/false);
  test::write_file(cache.partial_path(request.sha256), make_body(30'000, 5));  // longer than the file
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].header("range"), "bytes=30000-");
  EXPECT_EQ(requests[1].header("range"), "");
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, ContentRangeNotContinuingThePartialStartsAgain) {
  HttpServer server;
  std::string body = make_body(100'000);
  server.serve("/a", {.body = body, .etag = "\"v1\""});
  server.push_fault("/a", {.cut_after = 40'000});
  server.push_fault("/a", {.range_from_zero = true});  // 206, but "bytes 0-99999/100000"
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].header("range"), "bytes=40000-");
  EXPECT_EQ(requests[2].header("range"), "") << "the partial was dropped and the file fetched whole";
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, ResumedDownloadThatFailsVerificationGetsOneCleanTry) {
  HttpServer server;
  std::string body = make_body(100'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  // A partial whose bytes came from somewhere else (another mirror, an older file).
  test::write_file(cache.partial_path(request.sha256), make_body(30'000, 77));
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].header("range"), "bytes=30000-");
  EXPECT_EQ(requests[1].header("range"), "");
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, CompletePartialIsVerifiedWithoutATransfer) {
  HttpServer server;
  std::string body = make_body(20'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  test::write_file(cache.partial_path(request.sha256), body);  // a run stopped before the rename
  auto got = fetch(request, cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.count("/a"), 0u);
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, ServiceUnavailableWaitsForRetryAfter) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/a", {.body = body});
  server.push_fault("/a", {.status = 503, .body = "busy", .retry_after = "1"});
  auto start = std::chrono::steady_clock::now();
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.count("/a"), 2u);
  EXPECT_GE(elapsed, 900ms) << "Retry-After: 1 must be waited, not the 10 ms backoff";
}

TEST_F(FetchTest, TransientStatusesAreRetried) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/a", {.body = body});
  server.push_fault("/a", {.status = 500});
  server.push_fault("/a", {.status = 429, .retry_after = "0"});
  server.push_fault("/a", {.status = 408});
  auto options = fast_options();
  options.max_attempts_per_source = 4;
  auto got = fetch(request_for(body, {server.url("/a")}), cache, options);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.count("/a"), 4u);
}

TEST_F(FetchTest, RetriesAreBoundedAndReportTheLastStatus) {
  HttpServer server;
  std::string body = make_body(1000);
  server.serve("/a", {.body = body});
  for (int i = 0; i < 5; ++i) server.push_fault("/a", {.status = 503});
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::network);
  EXPECT_TRUE(contains(got.error().message, "HTTP 503")) << got.error().message;
  EXPECT_EQ(server.count("/a"), 3u);
  EXPECT_FALSE(got.error().hint.empty());
}

TEST_F(FetchTest, NotFoundAndForbiddenMoveToTheNextMirrorAtOnce) {
  HttpServer first, second, third;
  std::string body = make_body(10'000);
  second.serve("/b", {.body = body});
  second.push_fault("/b", {.status = 403});
  third.serve("/c", {.body = body});
  auto got = fetch(request_for(body, {first.url("/a"), second.url("/b"), third.url("/c")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(first.count("/a"), 1u);
  EXPECT_EQ(second.count("/b"), 1u);
  EXPECT_EQ(got->source, third.url("/c"));
}

TEST_F(FetchTest, MismatchingMirrorIsAFailedSource) {
  HttpServer bad, good;
  std::string body = make_body(50'000);
  bad.serve("/a", {.body = make_body(50'000, 2)});  // same size, other bytes
  good.serve("/a", {.body = body});
  auto got = fetch(request_for(body, {bad.url("/a"), good.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->source, good.url("/a"));
  EXPECT_EQ(bad.count("/a"), 1u);
  EXPECT_EQ(test::read_file(got->file), body);
}

// Everything an error says, as main prints it: message, notes, hint.
std::string full_text(const Error& error) {
  std::string text = error.message + "\n";
  for (const auto& note : error.notes) text += note + "\n";
  return text + error.hint;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST_F(FetchTest, DigestMismatchNamesUrlDigestsSizesAndAnErrorPageAsText) {
  HttpServer server;
  std::string body = make_body(50'000);
  std::string page = "<!DOCTYPE html>\n<html><body>Please log in</body></html>";
  server.serve("/a", {.body = page});
  auto request = request_for(body, {server.url("/a")}, /*pin_size=*/false);
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_TRUE(contains(got.error().message, server.url("/a"))) << text;
  EXPECT_TRUE(contains(got.error().message, request.sha256)) << text;
  EXPECT_TRUE(contains(got.error().message, digest_of(page))) << text;
  EXPECT_TRUE(contains(got.error().message, fmt::format("{} bytes", page.size()))) << text;
  // The page is text: shown as one line, its line breaks as spaces.
  EXPECT_TRUE(contains(text, "<!DOCTYPE html> <html><body>Please log in</body></html>")) << text;
  EXPECT_FALSE(fs::exists(cache.partial_path(request.sha256)));
  EXPECT_FALSE(fs::exists(cache.verified_path(request.sha256)));
}

TEST_F(FetchTest, BinaryBytesAreNeverShownEscaped) {
  HttpServer server;
  std::string body = make_body(50'000);
  server.serve("/a", {.body = make_body(50'000, 2)});  // same size, other bytes
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_FALSE(contains(text, "\\x")) << text;
  EXPECT_FALSE(contains(text, "first bytes")) << text;
  EXPECT_FALSE(contains(text, "begins")) << text;
}

TEST_F(FetchTest, MismatchNamesEachDigestOnce) {
  HttpServer first, second;
  std::string body = make_body(50'000);
  std::string one = make_body(50'000, 2), two = make_body(50'000, 3);
  first.serve("/a", {.body = one});
  second.serve("/a", {.body = two});
  auto request = request_for(body, {first.url("/a"), second.url("/a")});
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_EQ(occurrences(text, request.sha256), 1u) << text;
  EXPECT_EQ(occurrences(text, digest_of(one)), 1u) << text;
  EXPECT_EQ(occurrences(text, digest_of(two)), 1u) << text;
  EXPECT_TRUE(contains(text, first.url("/a"))) << text;
  EXPECT_TRUE(contains(text, second.url("/a"))) << text;

  // One source alone: the same, in a single message.
  auto single = fetch(request_for(body, {first.url("/a")}), cache, fast_options());
  ASSERT_FALSE(single);
  const auto single_text = full_text(single.error());
  EXPECT_EQ(occurrences(single_text, request.sha256), 1u) << single_text;
  EXPECT_EQ(occurrences(single_text, digest_of(one)), 1u) << single_text;
}

// A mirror holding a truncated copy answers with a complete response that is too short: the file
// there is incomplete, not tampered with, and the next mirror is tried.
TEST_F(FetchTest, TruncatedCopyOnAMirrorIsIncompleteAndTheNextMirrorIsTried) {
  HttpServer truncated, good;
  std::string body = make_body(50'000);
  truncated.serve("/a", {.body = body.substr(0, 30'000)});
  good.serve("/a", {.body = body});
  auto got = fetch(request_for(body, {truncated.url("/a"), good.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << full_text(got.error());
  EXPECT_EQ(got->source, good.url("/a"));
  EXPECT_EQ(truncated.count("/a"), 1u) << "a complete response is not asked for again";
  EXPECT_EQ(test::read_file(got->file), body);
}

TEST_F(FetchTest, TruncatedCopyEverywhereIsIncompleteNotAMismatch) {
  HttpServer server;
  std::string body = make_body(50'000);
  server.serve("/a", {.body = body.substr(0, 30'000)});
  auto request = request_for(body, {server.url("/a")});
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::incomplete) << text;
  EXPECT_TRUE(contains(got.error().message, "incomplete: 30000 of 50000 bytes")) << text;
  EXPECT_TRUE(contains(got.error().message, server.url("/a"))) << text;
  EXPECT_FALSE(contains(text, "mismatch")) << text;
  EXPECT_EQ(server.count("/a"), 1u);
  EXPECT_FALSE(fs::exists(cache.verified_path(request.sha256)));
}

TEST_F(FetchTest, ShortErrorPageIsIncompleteAndShownAsText) {
  HttpServer server;
  std::string body = make_body(50'000);
  server.serve("/a", {.body = "<html>error</html>"});
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::incomplete) << text;
  EXPECT_TRUE(contains(got.error().message, "incomplete: 18 of 50000 bytes")) << text;
  EXPECT_TRUE(contains(text, "<html>error</html>")) << text;
  EXPECT_EQ(server.count("/a"), 1u);
}

// The bytes are the pinned ones (their digest matches) but the pinned size is not theirs: the
// manifest is wrong, and no other source can do better.
TEST_F(FetchTest, DigestMatchWithAnotherLengthSaysTheManifestIsWrong) {
  HttpServer server, other;
  std::string body = make_body(50'000);
  server.serve("/a", {.body = body});
  other.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a"), other.url("/a")});
  request.size = 51'000;
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  const auto text = full_text(got.error());
  EXPECT_EQ(got.error().kind, ErrorKind::invalid_input) << text;
  EXPECT_TRUE(contains(got.error().message, "manifest")) << text;
  EXPECT_TRUE(contains(got.error().message, "51000 bytes")) << text;
  EXPECT_TRUE(contains(got.error().message, "50000 bytes")) << text;
  EXPECT_FALSE(contains(text, "mismatch")) << text;
  EXPECT_EQ(other.count("/a"), 0u);
  EXPECT_FALSE(fs::exists(cache.verified_path(request.sha256)));
}

TEST_F(FetchTest, CachedFileWhoseDigestMatchesAnotherPinnedSizeSaysTheManifestIsWrong) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  test::write_file(cache.verified_path(request.sha256), body);
  request.size = 9'000;
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::invalid_input) << full_text(got.error());
  EXPECT_TRUE(contains(got.error().message, "manifest")) << got.error().message;
  EXPECT_EQ(server.count("/a"), 0u);
  EXPECT_TRUE(fs::exists(cache.verified_path(request.sha256))) << "the verified file is kept";
}

TEST_F(FetchTest, BodyLargerThanPinnedIsStoppedEarly) {
  HttpServer server;
  std::string body = make_body(1000);
  server.serve("/a", {.body = make_body(4u << 20, 3)});
  auto request = request_for(body, {server.url("/a")});
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_TRUE(contains(got.error().message, "more than the 1000 bytes")) << got.error().message;
  EXPECT_FALSE(fs::exists(cache.partial_path(request.sha256)));
}

TEST_F(FetchTest, AnnouncedLargerBodyIsNotWaitedFor) {
  HttpServer server;
  std::string body = make_body(200'000);
  // 16 MiB announced, sent slowly: waiting for all of it would take five seconds.
  server.serve("/a", {.body = std::string(16u << 20, 'x'), .chunk = 65536, .chunk_delay = 20ms});
  auto start = std::chrono::steady_clock::now();
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::integrity);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  std::smatch match;
  std::string message = got.error().message;
  ASSERT_TRUE(std::regex_search(message, match, std::regex("stopped after the first ([0-9]+) bytes"))) << message;
  EXPECT_LE(std::stoull(match[1].str()), 200'000u);
}

TEST_F(FetchTest, StalledTransferTimesOutAndResumes) {
  HttpServer server;
  std::string body = make_body(200'000);
  server.serve("/a", {.body = body, .etag = "\"s\""});
  server.push_fault("/a", {.stall_after = 50'000, .stall_for = 10s});
  auto start = std::chrono::steady_clock::now();
  auto got = fetch(request_for(body, {server.url("/a")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s) << "a stall of stall_timeout (1 s) must be noticed";
  auto requests = server.requests_for("/a");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].header("range"), "bytes=50000-");
}

TEST_F(FetchTest, RedirectsAreFollowed) {
  HttpServer server;
  std::string body = make_body(10'000);
  server.serve("/real", {.body = body});
  server.push_fault("/old", {.status = 302, .location = server.url("/real")});
  auto got = fetch(request_for(body, {server.url("/old")}), cache, fast_options());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.count("/old"), 1u);
  EXPECT_EQ(server.count("/real"), 1u);
}

TEST_F(FetchTest, RedirectLoopsAreCut) {
  HttpServer server;
  std::string body = make_body(100);
  for (int i = 0; i < 10; ++i) server.push_fault("/loop", {.status = 302, .location = server.url("/loop")});
  auto options = fast_options();
  options.max_redirects = 3;
  auto got = fetch(request_for(body, {server.url("/loop")}), cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::network);
  EXPECT_EQ(server.count("/loop"), 4u) << "the first request and three redirects, no retries";
}

TEST_F(FetchTest, ProxyFromTheEnvironmentIsUsed) {
  HttpServer proxy;
  std::string body = make_body(10'000);
  // A proxy receives the absolute URL as the request target.
  const std::string url = "http://zcuda-proxy-test.invalid/a.zip";
  proxy.serve(url, {.body = body});
  auto got = [&] {
    test::ScopedEnv via("http_proxy", proxy.url("/"));
    return fetch(request_for(body, {url}), cache, fast_options());
  }();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(proxy.count(url), 1u);
}

TEST_F(FetchTest, RedirectToAFileUrlIsRefused) {
  HttpServer server;
  std::string body = make_body(100);
  test::write_file(dir / "local", body);
  server.push_fault("/old", {.status = 302, .location = test::file_url(dir / "local")});
  auto got = fetch(request_for(body, {server.url("/old")}), cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::network);
}

TEST_F(FetchTest, CancellationStopsAndKeepsThePartialForResuming) {
  HttpServer server;
  std::string body = make_body(1u << 20);
  server.serve("/a", {.body = body, .etag = "\"c\"", .chunk = 16384, .chunk_delay = 5ms});
  auto request = request_for(body, {server.url("/a")});
  std::atomic<bool> stop{false};
  auto options = fast_options();
  options.cancel = &stop;
  options.on_progress = [&](const Progress& p) {
    if (p.received >= 64 * 1024) stop = true;
  };
  auto got = fetch(request, cache, options);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::interrupted);
  auto partial = cache.partial_path(request.sha256);
  ASSERT_TRUE(fs::exists(partial));
  auto kept = test::read_file(partial);
  EXPECT_GE(kept.size(), 64u * 1024);
  EXPECT_LT(kept.size(), body.size());
  EXPECT_EQ(kept, body.substr(0, kept.size())) << "the partial must be a prefix of the file";
  EXPECT_EQ(server.count("/a"), 1u) << "no retry after a cancel";

  auto resumed = fetch(request, cache, fast_options());
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(server.requests_for("/a")[1].header("range"), fmt::format("bytes={}-", kept.size()));
  EXPECT_EQ(test::read_file(resumed->file), body);
}

TEST_F(FetchTest, RefusedConnectionIsANetworkErrorAfterRetries) {
  std::string url = fmt::format("http://127.0.0.1:{}/a", test::unused_loopback_port());
  auto got = fetch(request_for("x", {url}), cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::network);
  EXPECT_TRUE(contains(got.error().message, url)) << got.error().message;
}

TEST_F(FetchTest, FullDiskIsAnIoErrorAndThePartialStaysAPrefix) {
  ZCUDA_REQUIRE_FILE_SIZE_LIMIT();
  HttpServer server;
  std::string body = make_body(1u << 20);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  // A file-size limit makes writes fail as a full disk would (EFBIG), without root.
  bool limited = false;
  auto got = [&] {
    test::FileSizeLimit limit(256 * 1024);
    limited = limit.active();
    return fetch(request, cache, fast_options());
  }();
  ASSERT_TRUE(limited);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::io);
  EXPECT_TRUE(contains(got.error().hint, "disk is full")) << got.error().message;
  EXPECT_EQ(server.count("/a"), 1u) << "a disk error is not retried";
  auto kept = test::read_file(cache.partial_path(request.sha256));
  EXPECT_LE(kept.size(), 256u * 1024);
  EXPECT_EQ(kept, body.substr(0, kept.size()));
}

TEST_F(FetchTest, NotEnoughFreeSpaceIsRefusedBeforeAnyTransfer) {
  HttpServer server;
  std::string body = make_body(100);
  server.serve("/a", {.body = body});
  auto request = request_for(body, {server.url("/a")});
  request.size = std::uint64_t{1} << 60;  // an exbibyte
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::io);
  EXPECT_TRUE(contains(got.error().message, "Not enough free space")) << got.error().message;
  EXPECT_FALSE(got.error().hint.empty());
  EXPECT_EQ(server.count("/a"), 0u);
}

TEST_F(FetchTest, MalformedDigestIsRejected) {
  Request request;
  request.urls = {"http://127.0.0.1:1/a"};
  request.sha256 = "ABC";
  auto got = fetch(request, cache, fast_options());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::invalid_input);
}

}  // namespace
}  // namespace zcuda::fetch::testing
