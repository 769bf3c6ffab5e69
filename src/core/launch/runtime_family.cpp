#include <zcuda/launch/runtime_family.hpp>

#include <zcuda/base/path_text.hpp>
#include <zcuda/install/receipt.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

family::RecordedDigests recorded_digests(const RuntimeLocation& runtime) {
  family::RecordedDigests out;
  if (!runtime.version) return out;
  // The version's folder is runtime.dir, or its parent when the files sit in the archive's zluda/.
  fs::path dir = runtime.dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "…/v6/" names the folder too
  const fs::path version_name = path_from_utf8(*runtime.version);
  fs::path version_dir = dir.filename() == version_name ? dir : dir.parent_path();
  if (version_dir.filename() != version_name) return out;
  const auto receipt = install::read_receipt(version_dir.parent_path() / path_from_utf8(*runtime.version + ".receipt.json"));
  // The receipt must be this folder's: a copied or stale one describes other bytes.
  if (!receipt || receipt->component != "zluda" || receipt->version != *runtime.version) return out;
  const fs::path inner = dir.lexically_relative(version_dir);  // "." or "zluda"
  for (const auto& file : receipt->files) {
    if (file.type != archive::WrittenEntry::Type::file) continue;
    fs::path rel = path_from_utf8(file.path).lexically_normal();
    if (inner != ".") rel = rel.lexically_relative(inner);
    if (rel.empty() || *rel.begin() == "..") continue;
    out[generic_path_to_utf8(rel)] = family::RecordedFile{file.size, file.sha256};
  }
  return out;
}

family::Identity runtime_family(const RuntimeLocation& runtime, platform::Os os) {
  auto identity = family::identify_runtime(runtime.dir, os, recorded_digests(runtime));
  if (identity) return *identity;
  family::Identity unknown;
  unknown.evidence.push_back(identity.error().message);
  return unknown;
}

Result<std::optional<InstalledRuntime>> installed_runtime(const home::Home& home, platform::Os os) {
  std::error_code ec;
  if (!fs::exists(home.installs() / "zluda" / "current", ec)) return std::optional<InstalledRuntime>();
  auto located = locate_runtime(std::nullopt, home);
  if (!located) return std::unexpected(located.error());
  return std::optional<InstalledRuntime>(InstalledRuntime{located->version.value_or(""), located->dir, runtime_family(*located, os)});
}

}  // namespace zcuda::launch
