#include <algorithm>
#include <tuple>

#include <zcuda/base/path_text.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/install/runtime_files.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;

namespace {

// The family a receipt recorded; for an older install, told from its files now.
std::string family_of(const Receipt& r, const fs::path& dir, platform::Os os) {
  if (r.family.is_object() && r.family.contains("family")) return r.family.at("family").get<std::string>();
  if (r.component != "zluda") return "";
  const auto identity = family::identify_runtime(runtime_files_dir(dir).value_or(dir), os);
  return identity ? std::string(family::to_string(identity->family)) : "unknown";
}

}  // namespace

std::string_view to_string(Provenance how) {
  switch (how) {
    case Provenance::installed:
      return "installed";
    case Provenance::adopted:
      return "adopted";
    case Provenance::user_vouched:
      return "user-vouched";
    case Provenance::not_installed:
      return "not-installed";
  }
  return "installed";
}

std::vector<Listed> list(const home::Home& home, const manifest::Manifest& manifest, manifest::Channel channel, platform::Os os) {
  std::vector<Listed> out;
  const auto receipts = all_receipts(home);
  for (const auto& r : receipts) {
    Listed item;
    item.id = r.id;
    item.component = r.component;
    item.version = r.version;
    item.dir = r.adopted_dir ? path_from_utf8(*r.adopted_dir) : layout::version_dir(home, r.component, r.version);
    item.how = r.adopted_dir ? Provenance::adopted : is_user_vouched(r) ? Provenance::user_vouched : Provenance::installed;
    item.current = !r.adopted_dir && layout::read_pointer(home, r.component) == r.version;
    item.family = family_of(r, item.dir, os);
    out.push_back(std::move(item));
  }
  std::ranges::sort(out, [](const Listed& a, const Listed& b) { return std::tie(a.component, a.version) < std::tie(b.component, b.version); });
  for (const auto& a : manifest.artifacts) {
    const bool for_os = a.os == manifest::TargetOs::any || (a.os == manifest::TargetOs::windows) == (os == platform::Os::windows);
    if (!for_os || (a.channel && *a.channel != channel)) continue;
    if (std::ranges::any_of(receipts, [&](const Receipt& r) { return r.id == a.id; })) continue;
    Listed item;
    item.id = a.id;
    item.component = a.component;
    item.version = a.version;
    item.dir = layout::version_dir(home, a.component, a.version);
    item.how = Provenance::not_installed;
    out.push_back(std::move(item));
  }
  return out;
}

nlohmann::json to_json(const Listed& item) {
  return {{"id", item.id},
          {"component", item.component},
          {"version", item.version},
          {"dir", path_to_utf8(item.dir)},
          {"family", item.family.empty() ? nlohmann::json(nullptr) : nlohmann::json(item.family)},
          {"current", item.current},
          {"state", to_string(item.how)}};
}

}  // namespace zcuda::install
