#pragma once
// SHA-256 of files for the stage journal (OpenSSL EVP, streamed).
// TODO(unify): fetch::sha256_file does the same; use it once fetch lands.
#include <filesystem>
#include <string>

#include <zcuda/core/error.hpp>

namespace zcuda::stage::detail {

Result<std::string> sha256_file(const std::filesystem::path& file);

}  // namespace zcuda::stage::detail
