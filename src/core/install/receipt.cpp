#include "receipt.hpp"

#include <chrono>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/core/json_text.hpp>
#include <zcuda/core/version.hpp>
#include <zcuda/fetch/fetch.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/utf8.hpp>

namespace zcuda::install {

namespace fs = std::filesystem;
using nlohmann::json;
using Type = archive::WrittenEntry::Type;

namespace {

constexpr int kReceiptSchema = 1;

std::string_view type_name(Type type) {
  switch (type) {
    case Type::file: return "file";
    case Type::directory: return "directory";
    case Type::symlink: return "symlink";
  }
  return "file";
}

fs::path under(const fs::path& dir, const std::string& relative) {
  return dir / platform::path_from_utf8(relative);
}

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

json to_json(const Receipt& r) {
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
  return {{"schema", kReceiptSchema},
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
}

std::optional<Receipt> read_receipt(const fs::path& file) {
  auto text = platform::read_file(file, 256u << 20);
  if (!text) return std::nullopt;
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("schema", 0) != kReceiptSchema) return std::nullopt;
  try {
    Receipt r;
    r.id = doc.at("id").get<std::string>();
    r.component = doc.at("component").get<std::string>();
    r.version = doc.at("version").get<std::string>();
    r.sha256 = doc.at("sha256").get<std::string>();
    r.archive = doc.at("archive").get<std::string>();
    if (doc.at("root").is_string()) r.root = doc.at("root").get<std::string>();
    r.source = doc.value("source", "");
    r.installed_at = doc.value("installed_at", "");
    r.zcuda_version = doc.value("zcuda_version", "");
    r.entry = doc.value("manifest_entry", json::object());
    for (const auto& item : doc.at("files")) {
      archive::WrittenEntry f;
      f.path = item.at("path").get<std::string>();
      if (!manifest::is_safe_relative_path(f.path)) return std::nullopt;  // never follow a receipt outside its folder
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
        return std::nullopt;
      }
      r.files.push_back(std::move(f));
    }
    return r;
  } catch (const json::exception&) {
    return std::nullopt;  // a damaged receipt means "not installed"; the next install rewrites it
  }
}

Status write_receipt(const fs::path& file, const Receipt& receipt) {
  return platform::write_file_atomic(file, json_text(to_json(receipt), 1) + "\n");
}

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
      case Type::file: ok = fs::is_regular_file(status) && fs::file_size(path, ec) == f.size && !ec; break;
      case Type::directory: ok = fs::is_directory(status); break;
      case Type::symlink: ok = fs::is_symlink(status) && fs::read_symlink(path, ec).generic_string() == f.link_target && !ec; break;
    }
    if (!ok) bad.push_back(f.path);
  }
  return bad;
}

Result<std::vector<std::string>> full_check(const Receipt& receipt, const fs::path& dir) {
  std::vector<std::string> bad = quick_check(receipt, dir);
  for (const auto& f : receipt.files) {
    if (f.type != Type::file || std::find(bad.begin(), bad.end(), f.path) != bad.end()) continue;
    auto digest = fetch::sha256_file(under(dir, f.path));
    if (!digest) {
      if (digest.error().kind == ErrorKind::interrupted) return std::unexpected(digest.error());
      bad.push_back(f.path);
    } else if (*digest != f.sha256) {
      bad.push_back(f.path);
    }
  }
  return bad;
}

std::uint64_t total_bytes(const Receipt& receipt) {
  std::uint64_t total = 0;
  for (const auto& f : receipt.files) total += f.size;
  return total;
}

}  // namespace zcuda::install
