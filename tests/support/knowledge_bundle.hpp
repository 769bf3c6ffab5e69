#pragma once
// Signed knowledge bundles for tests, made with a throwaway root key (never a project key): the
// zcuda under test trusts it through ZCUDA_TEST_KNOWLEDGE_ROOT, a test hook.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <zcuda/base/sha256.hpp>
#include <zcuda/manifest/bundle.hpp>
#include <zcuda/manifest/ed25519.hpp>

namespace zcuda::test {

struct TestKeys {
  knowledge::KeyPair root = *knowledge::generate_key();
  knowledge::KeyPair signing = *knowledge::generate_key();
  knowledge::Time signing_expires = knowledge::now() + std::chrono::days(30);
};

struct TestBundle {
  std::uint64_t version = 0;
  knowledge::Time published = knowledge::now() - std::chrono::hours(1);
  knowledge::Time expires = knowledge::now() + std::chrono::days(7);
  std::string min_zcuda = "0.0.1";
  std::map<std::string, std::string> files;

  std::string index_text() const {
    knowledge::Index index;
    index.version = version;
    index.published = published;
    index.expires = expires;
    index.min_zcuda = min_zcuda;
    for (const auto& [name, content] : files) {
      Sha256 hasher;
      hasher.update(content.data(), content.size());
      index.files.push_back({name, content.size(), hasher.hex_digest()});
    }
    return knowledge::index_to_json(index);
  }
};

inline std::string sign_index(const std::string& index_text, const TestKeys& keys) {
  knowledge::Signature s;
  s.key = keys.signing.public_hex;
  s.key_expires = keys.signing_expires;
  s.root = keys.root.public_hex;
  s.root_signature = *knowledge::sign(keys.root.private_hex, knowledge::key_statement(s.key, s.key_expires));
  s.signature = *knowledge::sign(keys.signing.private_hex, index_text);
  return knowledge::signature_to_json(s);
}

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
}

// Writes index.json, index.json.sig and the files into `dir`.
inline void write_bundle(const std::filesystem::path& dir, const TestBundle& bundle, const TestKeys& keys) {
  const std::string index = bundle.index_text();
  write_text(dir / "index.json", index);
  write_text(dir / "index.json.sig", sign_index(index, keys));
  for (const auto& [name, content] : bundle.files) write_text(dir / name, content);
}

}  // namespace zcuda::test
