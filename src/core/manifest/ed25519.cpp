#include <zcuda/manifest/ed25519.hpp>

#include <memory>
#include <optional>

#include <openssl/evp.h>

namespace zcuda::knowledge {

namespace {

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const unsigned char* bytes_of(std::string_view text) { return reinterpret_cast<const unsigned char*>(text.data()); }

}  // namespace

std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_value(hex[i]), low = hex_value(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

Result<KeyPair> generate_key() {
  EVP_PKEY* raw = nullptr;
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr), &EVP_PKEY_CTX_free);
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &raw) != 1) {
    return fail(ErrorKind::internal, "OpenSSL could not make an Ed25519 key");
  }
  Pkey key(raw, &EVP_PKEY_free);
  unsigned char pub[32], priv[32];
  std::size_t pub_len = sizeof pub, priv_len = sizeof priv;
  if (EVP_PKEY_get_raw_public_key(key.get(), pub, &pub_len) != 1 || EVP_PKEY_get_raw_private_key(key.get(), priv, &priv_len) != 1) {
    return fail(ErrorKind::internal, "OpenSSL could not export an Ed25519 key");
  }
  return KeyPair{to_hex(std::string_view(reinterpret_cast<char*>(pub), pub_len)), to_hex(std::string_view(reinterpret_cast<char*>(priv), priv_len))};
}

Result<std::string> sign(std::string_view private_hex, std::string_view message) {
  const auto seed = from_hex(private_hex);
  if (!seed || seed->size() != 32) return fail(ErrorKind::invalid_input, "An Ed25519 private key is 64 hex digits");
  Pkey key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes_of(*seed), seed->size()), &EVP_PKEY_free);
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char signature[64];
  std::size_t length = sizeof signature;
  if (!key || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &length, bytes_of(message), message.size()) != 1) {
    return fail(ErrorKind::internal, "OpenSSL could not sign with Ed25519");
  }
  return to_hex(std::string_view(reinterpret_cast<char*>(signature), length));
}

bool verify(std::string_view public_hex, std::string_view message, std::string_view signature_hex) {
  const auto pub = from_hex(public_hex);
  const auto signature = from_hex(signature_hex);
  if (!pub || pub->size() != 32 || !signature || signature->size() != 64) return false;
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes_of(*pub), pub->size()), &EVP_PKEY_free);
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), bytes_of(*signature), signature->size(), bytes_of(message), message.size()) == 1;
}

}  // namespace zcuda::knowledge
