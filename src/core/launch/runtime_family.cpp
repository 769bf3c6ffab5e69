#include <zcuda/launch/runtime_family.hpp>

#include <zcuda/base/path_text.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/install/install.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

namespace {

// The receipt that describes `dir` (runtime.dir, normalised), and the folder its paths are
// relative to: an adopted folder's own, or installs/zluda/<version>.receipt.json beside the
// version's folder (`dir` is that folder, or its zluda/ where the archive keeps the files there).
std::optional<std::pair<install::Receipt, fs::path>> receipt_of(const RuntimeLocation& runtime, const fs::path& dir) {
  if (!runtime.version) return std::nullopt;
  if (runtime.receipt) {
    auto receipt = install::read_receipt(*runtime.receipt);
    // An adoption's receipt describes the folder it names, and only that one.
    if (!receipt || !receipt->adopted_dir || path_from_utf8(*receipt->adopted_dir).lexically_normal() != dir) return std::nullopt;
    return std::pair{std::move(*receipt), dir};
  }
  const fs::path version_name = path_from_utf8(*runtime.version);
  fs::path version_dir = dir.filename() == version_name ? dir : dir.parent_path();
  if (version_dir.filename() != version_name) return std::nullopt;
  auto receipt = install::read_receipt(version_dir.parent_path() / path_from_utf8(*runtime.version + ".receipt.json"));
  // The receipt must be this folder's: a copied or stale one describes other bytes.
  if (!receipt || receipt->component != "zluda" || receipt->version != *runtime.version) return std::nullopt;
  return std::pair{std::move(*receipt), version_dir};
}

// The upstream release a receipt names: what zcuda identified when it installed a --url archive
// or adopted a folder, else the version of the pinned archive it installed.
void recorded_release(const install::Receipt& receipt, family::Recorded& out) {
  if (receipt.family.is_object()) {
    // Read leniently: a receipt edited by hand loses its release, never the launch.
    const auto& identity = receipt.family;
    const bool upstream = identity.contains("family") && identity.at("family") == "upstream";
    if (upstream && identity.contains("release") && identity.at("release").is_string()) {
      out.release = identity.at("release").get<std::string>();
      out.release_source = receipt.adopted_dir ? "identified when it was adopted" : "identified when it was installed";
    }
    return;
  }
  if (receipt.adopted_dir || install::is_user_vouched(receipt)) return;
  out.release = receipt.version;
  out.release_source = "the pinned archive it was installed from";
}

}  // namespace

family::Recorded recorded_install(const RuntimeLocation& runtime) {
  family::Recorded out;
  fs::path dir = runtime.dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "…/v6/" names the folder too
  const auto found = receipt_of(runtime, dir);
  if (!found) return out;
  const auto& [receipt, receipt_dir] = *found;
  const fs::path inner = dir.lexically_relative(receipt_dir);  // "." or "zluda"
  for (const auto& file : receipt.files) {
    if (file.type != archive::WrittenEntry::Type::file) continue;
    fs::path rel = path_from_utf8(file.path).lexically_normal();
    if (inner != ".") rel = rel.lexically_relative(inner);
    if (rel.empty() || *rel.begin() == "..") continue;
    out.files[generic_path_to_utf8(rel)] = family::RecordedFile{file.size, file.sha256};
  }
  recorded_release(receipt, out);
  return out;
}

family::Identity runtime_family(const RuntimeLocation& runtime, platform::Os os) {
  auto identity = family::identify_runtime(runtime.dir, os, recorded_install(runtime));
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
