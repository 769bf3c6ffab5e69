#include "runtime_digests.hpp"

#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::stage::detail {

namespace fs = std::filesystem;
using nlohmann::json;

std::map<std::string, ReceiptFile> read_runtime_receipt(const fs::path& runtime_dir) {
  std::map<std::string, ReceiptFile> out;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::absolute(runtime_dir, ec), ec);
  if (ec) return out;
  const std::string version = path_to_utf8(dir.filename());
  if (version.empty() || dir.parent_path().filename() != "zluda") return out;
  const fs::path file = dir.parent_path() / path_from_utf8(version + ".receipt.json");
  if (!fs::is_regular_file(file, ec)) return out;
  auto text = platform::read_file(file, 256u << 20);
  if (!text) return out;
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("schema", 0) != 1) return out;
  // The receipt must be this folder's: a copied or stale one describes other bytes.
  if (doc.value("component", "") != "zluda" || doc.value("version", "") != version) return out;
  try {
    for (const auto& item : doc.at("files")) {
      if (item.at("type").get<std::string>() != "file") continue;
      const fs::path rel = path_from_utf8(item.at("path").get<std::string>()).lexically_normal();
      out[generic_path_to_utf8(rel)] = ReceiptFile{item.at("size").get<std::uint64_t>(), item.at("sha256").get<std::string>()};
    }
  } catch (const json::exception&) {
    out.clear();  // damaged: hash everything
  }
  return out;
}

RuntimeDigests::RuntimeDigests(const fs::path& runtime_dir) : runtime_dir_(runtime_dir), receipt_(read_runtime_receipt(runtime_dir)) {
  std::error_code ec;
  runtime_dir_ = fs::weakly_canonical(fs::absolute(runtime_dir, ec), ec);
}

Result<std::string> RuntimeDigests::digest(const fs::path& source) {
  if (auto it = cache_.find(source); it != cache_.end()) return it->second;
  std::string digest;
  if (!receipt_.empty()) {
    std::error_code ec;
    // The folder canonical, the name as is: a symlink in the runtime is not its target.
    const fs::path parent = fs::weakly_canonical(fs::absolute(source, ec).parent_path(), ec);
    const fs::path rel = (parent / source.filename()).lexically_relative(runtime_dir_);
    auto entry = rel.empty() ? receipt_.end() : receipt_.find(generic_path_to_utf8(rel));
    // A regular file (not a link to elsewhere) of the recorded size: the receipt's digest holds.
    // `zcuda install --repair` re-hashes installed files when a same-size change is suspected.
    if (entry != receipt_.end()) {
      auto status = fs::symlink_status(source, ec);
      if (!ec && fs::is_regular_file(status) && fs::file_size(source, ec) == entry->second.size && !ec) digest = entry->second.sha256;
    }
  }
  if (digest.empty()) {
    auto hashed = sha256_file(source);
    if (!hashed) return hashed;
    digest = std::move(*hashed);
  }
  cache_[source] = digest;
  return digest;
}

}  // namespace zcuda::stage::detail
