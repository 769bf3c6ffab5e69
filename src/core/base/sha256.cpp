#include <zcuda/base/sha256.hpp>

#include <array>
#include <fstream>
#include <memory>
#include <new>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/base/io_error.hpp>

namespace zcuda {

namespace {
void init_sha256(EVP_MD_CTX* ctx) {
  // Only a failed allocation inside OpenSSL can make this fail; treat it like operator new.
  if (EVP_DigestInit_ex2(ctx, EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
}
}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) throw std::bad_alloc();
  init_sha256(ctx_);
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

Sha256::Sha256(Sha256&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

Sha256& Sha256::operator=(Sha256&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

void Sha256::update(const void* data, std::size_t size) {
  if (size > 0) EVP_DigestUpdate(ctx_, data, size);
}

void Sha256::reset() { init_sha256(ctx_); }

std::string Sha256::hex_digest() const {
  // Finalise a copy so the running state stays usable.
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> copy(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!copy || EVP_MD_CTX_copy_ex(copy.get(), ctx_) != 1) throw std::bad_alloc();
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(copy.get(), digest.data(), &length);
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

bool is_sha256_hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<std::string> sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(open_for_reading_error(file, std::error_code(errno, std::generic_category())));
  Sha256 hasher;
  // Large reads keep the hash near the speed of `openssl dgst` on multi-GB files. One buffer per
  // thread: a fresh megabyte per file cost a page fault per 4 KiB on every small file.
  thread_local std::vector<char> buffer(1u << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    hasher.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    return std::unexpected(io_error("read", file, std::error_code(errno, std::generic_category())));
  }
  return hasher.hex_digest();
}

}  // namespace zcuda
