#pragma once
// Shared helpers of the fetch tests: deterministic bodies, an independent SHA-256, fast options.
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <zcuda/fetch/fetch.hpp>

#include "support/environment.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::fetch::testing {

using namespace std::chrono_literals;

// Bytes that do not compress and differ by seed, so a wrong byte range changes the digest.
inline std::string make_body(std::size_t size, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::string body(size, '\0');
  for (auto& c : body) c = static_cast<char>(random() & 0xff);
  return body;
}

// OpenSSL's one-shot digest, independent of the streaming hasher under test.
inline std::string digest_of(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), md, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

class FetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A proxy set in the developer's environment must not intercept loopback requests.
    test::set_env("NO_PROXY", "127.0.0.1,localhost");
    test::set_env("no_proxy", "127.0.0.1,localhost");
    test::set_env("CURL_CA_BUNDLE", std::nullopt);
  }

  // Short pauses and timeouts keep the suite fast; the policy is the same.
  static Options fast_options() {
    Options o;
    o.max_attempts_per_source = 3;
    o.initial_backoff = 10ms;
    o.max_backoff = 50ms;
    o.connect_timeout = 5s;
    o.stall_timeout = 1s;
    return o;
  }

  static Request request_for(const std::string& body, std::vector<std::string> urls, bool pin_size = true) {
    Request r;
    r.urls = std::move(urls);
    r.sha256 = digest_of(body);
    if (pin_size) r.size = body.size();
    r.file_name = "artifact.zip";
    return r;
  }

  test::TempDir dir;
  Cache cache{dir / "cache"};
};

}  // namespace zcuda::fetch::testing
