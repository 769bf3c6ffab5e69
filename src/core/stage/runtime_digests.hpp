#pragma once
// SHA-256 digests of runtime files. An installed ZLUDA (<home>/installs/zluda/<version>/) has a
// receipt beside it (<version>.receipt.json, docs/install.md) holding each file's size and
// digest, computed while extracting: those are used when the file's size still matches, so
// staging does not read the runtime's bytes again. Anything else is hashed.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include <zcuda/base/error.hpp>

namespace zcuda::stage::detail {

struct ReceiptFile {
  std::uint64_t size = 0;
  std::string sha256;
};

// The receipt's files by path relative to `runtime_dir`; empty when `runtime_dir` is not an
// installed ZLUDA version or its receipt is missing or damaged.
std::map<std::string, ReceiptFile> read_runtime_receipt(const std::filesystem::path& runtime_dir);

class RuntimeDigests {
 public:
  explicit RuntimeDigests(const std::filesystem::path& runtime_dir);
  // The digest of `source`, a file in the runtime folder; cached per path.
  Result<std::string> digest(const std::filesystem::path& source);

 private:
  std::filesystem::path runtime_dir_;
  std::map<std::string, ReceiptFile> receipt_;
  std::map<std::filesystem::path, std::string> cache_;
};

}  // namespace zcuda::stage::detail
