#include <zcuda/install/receipt.hpp>

#include <chrono>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;
using nlohmann::json;
using Type = archive::WrittenEntry::Type;

namespace {

constexpr int kReceiptSchema = 1;

std::string_view type_name(Type type) {
  switch (type) {
    case Type::file:
      return "file";
    case Type::directory:
      return "directory";
    case Type::symlink:
      return "symlink";
  }
  return "file";
}

fs::path under(const fs::path& dir, const std::string& relative) { return dir / path_from_utf8(relative); }

}  // namespace

Receipt make_receipt(const manifest::Artifact& artifact, std::vector<archive::WrittenEntry> files, std::string source) {
  Receipt r;
  r.id = artifact.id;
  r.component = artifact.component;
  r.version = artifact.version;
  r.sha256 = artifact.sha256;
  r.archive = std::string(manifest::to_string(artifact.archive));
  r.root = artifact.root;
  r.source = std::move(source);
  r.installed_at = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
  r.zcuda_version = std::string(version());
  r.entry = artifact.entry;
  r.files = std::move(files);
  return r;
}

void to_json(json& out, const Receipt& r) {
  json files = json::array();
  for (const auto& f : r.files) {
    json item = {{"path", f.path}, {"type", type_name(f.type)}};
    if (f.type == Type::file) {
      item["size"] = f.size;
      item["sha256"] = f.sha256;
    } else if (f.type == Type::symlink) {
      item["target"] = f.link_target;
    }
    files.push_back(std::move(item));
  }
  out = {{"schema", kReceiptSchema},
         {"id", r.id},
         {"component", r.component},
         {"version", r.version},
         {"sha256", r.sha256},
         {"archive", r.archive},
         {"root", r.root ? json(*r.root) : json(nullptr)},
         {"source", r.source},
         {"installed_at", r.installed_at},
         {"zcuda_version", r.zcuda_version},
         {"manifest_entry", r.entry},
         {"files", std::move(files)}};
  if (r.adopted_dir) out["adopted"] = *r.adopted_dir;
  if (!r.family.is_null()) out["family"] = r.family;
}

void from_json(const json& in, Receipt& r) {
  if (in.at("schema").get<int>() != kReceiptSchema) {
    throw json::other_error::create(501, fmt::format("receipt schema {} (this zcuda reads {})", in.at("schema").dump(), kReceiptSchema), &in);
  }
  r = Receipt{};
  r.id = in.at("id").get<std::string>();
  r.component = in.at("component").get<std::string>();
  r.version = in.at("version").get<std::string>();
  r.sha256 = in.at("sha256").get<std::string>();
  r.archive = in.at("archive").get<std::string>();
  if (in.at("root").is_string()) r.root = in.at("root").get<std::string>();
  r.source = in.at("source").get<std::string>();
  r.installed_at = in.at("installed_at").get<std::string>();
  r.zcuda_version = in.at("zcuda_version").get<std::string>();
  r.entry = in.at("manifest_entry");
  if (in.contains("adopted") && in.at("adopted").is_string()) r.adopted_dir = in.at("adopted").get<std::string>();
  if (in.contains("family")) r.family = in.at("family");
  for (const auto& item : in.at("files")) {
    archive::WrittenEntry f;
    f.path = item.at("path").get<std::string>();
    // Never follow a receipt outside its folder.
    if (!manifest::is_safe_relative_path(f.path)) {
      throw json::other_error::create(502, fmt::format("the receipt names \"{}\", which leaves its folder", f.path), &item);
    }
    const std::string type = item.at("type").get<std::string>();
    if (type == "file") {
      f.type = Type::file;
      f.size = item.at("size").get<std::uint64_t>();
      f.sha256 = item.at("sha256").get<std::string>();
    } else if (type == "directory") {
      f.type = Type::directory;
    } else if (type == "symlink") {
      f.type = Type::symlink;
      f.link_target = item.at("target").get<std::string>();
    } else {
      throw json::other_error::create(503, fmt::format("unknown entry type \"{}\"", type), &item);
    }
    r.files.push_back(std::move(f));
  }
}

std::optional<Receipt> read_receipt(const fs::path& file) {
  auto text = platform::read_file(file, 256u << 20);
  if (!text) return std::nullopt;
  // A damaged receipt means "not installed"; the next install rewrites it.
  auto receipt = parse_record_text<Receipt>(*text, "receipt");
  if (!receipt) return std::nullopt;
  return std::move(*receipt);
}

std::optional<Receipt> read_receipt(const home::Home& home, const std::string& component, const std::string& version) {
  return read_receipt(layout::receipt_path(home, component, version));
}

std::vector<Receipt> all_receipts(const home::Home& home) {
  std::vector<Receipt> found;
  std::error_code ec;
  for (const auto& component : fs::directory_iterator(home.installs(), ec)) {
    std::error_code inner;
    for (const auto& entry : fs::directory_iterator(component.path(), inner)) {
      const std::string name = path_to_utf8(entry.path().filename());
      if (!name.ends_with(".receipt.json") || name.starts_with(".")) continue;
      if (auto receipt = read_receipt(entry.path())) found.push_back(std::move(*receipt));
    }
  }
  return found;
}

Status write_receipt(const fs::path& file, const Receipt& receipt) { return platform::write_file_atomic(file, json_text(json(receipt), 1) + "\n"); }

bool same_artifact(const Receipt& r, const manifest::Artifact& a) {
  return r.id == a.id && r.component == a.component && r.version == a.version && r.sha256 == a.sha256 &&
         r.archive == manifest::to_string(a.archive) && r.root == a.root;
}

std::vector<std::string> quick_check(const Receipt& receipt, const fs::path& dir) {
  std::vector<std::string> bad;
  for (const auto& f : receipt.files) {
    std::error_code ec;
    const auto path = under(dir, f.path);
    const auto status = fs::symlink_status(path, ec);
    bool ok = false;
    switch (f.type) {
      case Type::file:
        ok = fs::is_regular_file(status) && fs::file_size(path, ec) == f.size && !ec;
        break;
      case Type::directory:
        ok = fs::is_directory(status);
        break;
      case Type::symlink:
        ok = fs::is_symlink(status) && generic_path_to_utf8(fs::read_symlink(path, ec)) == f.link_target && !ec;
        break;
    }
    if (!ok) bad.push_back(f.path);
  }
  return bad;
}

Result<std::vector<std::string>> full_check(const Receipt& receipt, const fs::path& dir) {
  std::vector<std::string> bad = quick_check(receipt, dir);
  for (const auto& f : receipt.files) {
    if (f.type != Type::file || std::find(bad.begin(), bad.end(), f.path) != bad.end()) continue;
    auto digest = sha256_file(under(dir, f.path));
    if (!digest) {
      if (digest.error().kind == ErrorKind::interrupted) return std::unexpected(digest.error());
      bad.push_back(f.path);
    } else if (*digest != f.sha256) {
      bad.push_back(f.path);
    }
  }
  return bad;
}

std::vector<std::string> quarantine_suspects(const Receipt& receipt, const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;  // removed as a whole: uninstalled, not quarantined
  for (const auto& f : receipt.files) {
    if (f.type != Type::file || f.size == 0) continue;
    const auto path = under(dir, f.path);
    const auto status = fs::symlink_status(path, ec);
    if (!fs::exists(status) || (fs::is_regular_file(status) && fs::file_size(path, ec) == 0 && !ec)) out.push_back(f.path);
  }
  return out;
}

std::vector<std::string> quarantine_suspects(const home::Home& home, const std::string& component, const std::string& version) {
  const auto receipt = read_receipt(home, component, version);
  if (!receipt) return {};
  return quarantine_suspects(*receipt, layout::version_dir(home, component, version));
}

std::vector<std::string> quarantine_suspects_of_current(const home::Home& home, const std::string& component) {
  const auto version = layout::read_pointer(home, component);
  if (!version) return {};
  return quarantine_suspects(home, component, *version);
}

std::uint64_t total_bytes(const Receipt& receipt) {
  std::uint64_t total = 0;
  for (const auto& f : receipt.files) total += f.size;
  return total;
}

}  // namespace zcuda::install
