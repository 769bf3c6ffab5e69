// SHA-256 of the library files the probe reports. The probe has no third-party dependencies, so
// it reports paths and sizes and zcuda digests them here.
// TODO(merge): fetch declares fetch::sha256_file; once it is on main, use that one instead.
#include <zcuda/verify/verify.hpp>

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <memory>

#include <zcuda/platform/files.hpp>

namespace zcuda::verify {

Result<std::string> sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(platform::io_error("read", file, std::error_code(errno, std::generic_category())));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return fail(ErrorKind::internal, "OpenSSL could not start a SHA-256 digest");
  }
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), n) != 1) return fail(ErrorKind::internal, "SHA-256 update failed");
  }
  if (in.bad()) return std::unexpected(platform::io_error("read", file, std::make_error_code(std::errc::io_error)));
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1) return fail(ErrorKind::internal, "SHA-256 final failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

}  // namespace zcuda::verify
