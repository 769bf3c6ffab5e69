#include "digest.hpp"

#include <cerrno>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include <zcuda/platform/files.hpp>

namespace zcuda::stage::detail {

Result<std::string> sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(platform::io_error("read", file, std::error_code(errno, std::generic_category())));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return fail(ErrorKind::internal, "OpenSSL could not start a SHA-256 digest");
  std::vector<char> buffer(1u << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = in.gcount();
    if (n > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(n)) != 1) {
      return fail(ErrorKind::internal, "OpenSSL failed while hashing");
    }
  }
  if (in.bad()) return std::unexpected(platform::io_error("read", file, std::error_code(errno, std::generic_category())));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) return fail(ErrorKind::internal, "OpenSSL could not finish a SHA-256 digest");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace zcuda::stage::detail
