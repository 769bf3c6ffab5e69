#pragma once
// Streaming SHA-256 (OpenSSL EVP): fed chunk by chunk as bytes arrive, so a download is hashed
// without a second pass over the file.
#include <cstddef>
#include <filesystem>
#include <string>

#include <zcuda/base/error.hpp>

struct evp_md_ctx_st;

namespace zcuda {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&& other) noexcept;
  Sha256& operator=(Sha256&& other) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t size);
  // Starts over, as if nothing had been fed (a server that ignored a Range request).
  void reset();
  // Lowercase hex of everything fed so far; the hasher can still be fed afterwards.
  std::string hex_digest() const;

 private:
  evp_md_ctx_st* ctx_ = nullptr;
};

// SHA-256 of a file as lowercase hex (OpenSSL EVP, streamed).
Result<std::string> sha256_file(const std::filesystem::path& file);

// True for 64 lowercase hex digits, the only spelling manifests and the cache use.
bool is_sha256_hex(const std::string& text);

}  // namespace zcuda
