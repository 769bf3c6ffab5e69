#pragma once
// The receipt of an installed version: the manifest entry it came from and every entry written,
// with size and SHA-256. Re-runs compare it with the manifest and the disk instead of fetching;
// `zcuda report` reads it to check an install. Its one JSON form is to_json/from_json here
// (zcuda/base/record.hpp says why).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/archive/archive.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/manifest/manifest.hpp>

namespace zcuda::install {

struct Receipt {
  std::string id;
  std::string component;
  std::string version;
  std::string sha256;  // of the downloaded artifact
  std::string archive;
  std::optional<std::string> root;
  std::string source;
  std::string installed_at;  // UTC, ISO 8601
  std::string zcuda_version;
  nlohmann::json entry;  // the manifest entry as written
  std::vector<archive::WrittenEntry> files;
  // Added later; absent in older receipts. An adopted folder (install --adopt) stays where the
  // application put it: its absolute path; the files list describes that folder.
  std::optional<std::string> adopted_dir;
  nlohmann::json family;  // family::Identity's JSON form, where zcuda identified it; null otherwise
  bool operator==(const Receipt&) const = default;
};

Receipt make_receipt(const manifest::Artifact& artifact, std::vector<archive::WrittenEntry> files, std::string source);
void to_json(nlohmann::json& out, const Receipt& receipt);
void from_json(const nlohmann::json& in, Receipt& receipt);  // also refuses paths that leave the folder

// nullopt when the file is missing or unreadable as a receipt (then the version is treated as
// not installed and installed again).
std::optional<Receipt> read_receipt(const std::filesystem::path& file);
// The receipt of an installed version under home (installs/<component>/<version>.receipt.json).
std::optional<Receipt> read_receipt(const home::Home& home, const std::string& component, const std::string& version);
// Every readable receipt under home's installs, component by component.
std::vector<Receipt> all_receipts(const home::Home& home);
Status write_receipt(const std::filesystem::path& file, const Receipt& receipt);

// True when the receipt records the same bytes installed the same way as `artifact` pins.
bool same_artifact(const Receipt& receipt, const manifest::Artifact& artifact);

// Paths whose entry is missing or has another type or size (stat only; fast).
std::vector<std::string> quick_check(const Receipt& receipt, const std::filesystem::path& dir);
// Paths that are missing or whose SHA-256 differs (reads every file).
Result<std::vector<std::string>> full_check(const Receipt& receipt, const std::filesystem::path& dir);

std::uint64_t total_bytes(const Receipt& receipt);

// Files the receipt lists with content that are now missing or empty while their install folder
// is still there: what an antivirus quarantine leaves (docs/install.md). Stat only.
std::vector<std::string> quarantine_suspects(const Receipt& receipt, const std::filesystem::path& dir);
// The same for the installed version of `component` under home; empty without a receipt.
std::vector<std::string> quarantine_suspects(const home::Home& home, const std::string& component, const std::string& version);
// The same for the version the component's `current` pointer names.
std::vector<std::string> quarantine_suspects_of_current(const home::Home& home, const std::string& component);

}  // namespace zcuda::install
