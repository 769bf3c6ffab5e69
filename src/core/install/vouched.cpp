#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/install/adopt.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/install/runtime_files.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text;
}

bool is_hex64(const std::string& text) {
  return text.size() == 64 && std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The URL's last path segment, without a query or fragment.
std::string file_name_of(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<Plan> plan_vouched(const Vouched& vouched, const home::Home& home) {
  const std::string digest = lower(vouched.sha256);
  if (!is_hex64(digest)) {
    return fail(ErrorKind::usage, fmt::format("--sha256 {}: not a SHA-256 digest", vouched.sha256),
                "Give the 64 hexadecimal digits of the file's SHA-256 (sha256sum FILE, or certutil -hashfile FILE SHA256 on Windows).");
  }
  const std::string file = file_name_of(vouched.url);
  const std::string lower_file = lower(file);
  manifest::Artifact a;
  std::string stem;
  if (lower_file.ends_with(".zip")) {
    a.archive = manifest::ArchiveKind::zip;
    stem = file.substr(0, file.size() - 4);
  } else if (lower_file.ends_with(".tar.gz") || lower_file.ends_with(".tgz")) {
    a.archive = manifest::ArchiveKind::tar_gz;
    stem = file.substr(0, file.size() - (lower_file.ends_with(".tgz") ? 4 : 7));
  } else {
    return fail(ErrorKind::usage, fmt::format("--url {}: the file name says neither .zip nor .tar.gz", vouched.url),
                "Give the URL of a .zip, .tar.gz or .tgz archive.");
  }
  const std::string name = vouched.name.empty() ? sanitized_runtime_name(stem) : vouched.name;
  if (auto usable = check_runtime_name(name); !usable) return std::unexpected(usable.error());
  // The name is a folder under installs/zluda: another version's bytes or an adoption there stay.
  if (auto existing = read_receipt(home, "zluda", name); existing && (existing->adopted_dir || existing->sha256 != digest)) {
    return fail(ErrorKind::usage, fmt::format("The runtime name \"{}\" is already taken by an install or an adoption", name),
                "Pick another with --name NAME, or remove the old one with 'zcuda install --remove " + name + "'.");
  }
  a.id = "zluda-vouched-" + name;
  a.component = "zluda";
  a.version = name;
  a.url = vouched.url;
  a.sha256 = digest;
  a.file_name = file;
  a.license = "as its publisher states (installed because you vouched for its digest)";
  a.entry = {{"user_vouched", true}, {"url", vouched.url}, {"sha256", digest}, {"archive", manifest::to_string(a.archive)}};
  Plan plan;
  plan.os = platform::current_os();
  plan.manifest_origin = "--url";
  PlanItem item;
  item.artifact = std::move(a);
  item.selected = true;
  item.becomes_current = false;
  item.destination = layout::version_dir(home, "zluda", name);
  plan.items.push_back(std::move(item));
  return plan;
}

bool is_user_vouched(const Receipt& receipt) { return receipt.entry.is_object() && receipt.entry.value("user_vouched", false); }

Status record_family(const home::Home& home, const std::string& version, platform::Os os) {
  auto receipt = read_receipt(home, "zluda", version);
  if (!receipt) return {};
  const fs::path dir = layout::version_dir(home, "zluda", version);
  auto identity = family::identify_runtime(runtime_files_dir(dir).value_or(dir), os);
  receipt->family =
      identity ? family::to_json(*identity) : nlohmann::json{{"family", "unknown"}, {"evidence", nlohmann::json::array({identity.error().message})}};
  return write_receipt(layout::receipt_path(home, "zluda", version), *receipt);
}

}  // namespace zcuda::install
