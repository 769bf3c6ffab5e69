#pragma once
// Ed25519 through OpenSSL's EVP interface: what signs and checks a knowledge bundle
// (docs/knowledge.md). Keys and signatures travel as lowercase hex.
#include <optional>
#include <string>
#include <string_view>

#include <zcuda/base/error.hpp>

namespace zcuda::knowledge {

struct KeyPair {
  std::string public_hex;   // 32 bytes
  std::string private_hex;  // the 32-byte seed
};

// A fresh key pair (tests and throwaway keys; the project's keys are made with openssl).
Result<KeyPair> generate_key();
// The signature (64 bytes, hex) of `message` by the key whose seed is `private_hex`.
Result<std::string> sign(std::string_view private_hex, std::string_view message);
// Whether `signature_hex` is a valid signature of `message` by `public_hex`. Malformed hex is
// simply not valid.
bool verify(std::string_view public_hex, std::string_view message, std::string_view signature_hex);

std::string to_hex(std::string_view bytes);
// nullopt unless `hex` is an even number of hex digits.
std::optional<std::string> from_hex(std::string_view hex);

}  // namespace zcuda::knowledge
