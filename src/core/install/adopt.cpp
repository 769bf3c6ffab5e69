#include <zcuda/install/adopt.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/base/io_error.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/sha256.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;
using Type = archive::WrittenEntry::Type;

namespace {

// Names that already mean something to --runtime, or that the layout uses.
bool reserved(const std::string& name) { return name == "current" || name == "native" || name == "zluda" || name == "auto"; }

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '+';
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 100 || name.front() == '.' || reserved(name)) return false;
  return std::ranges::all_of(name, name_char);
}

}  // namespace

std::string sanitized_runtime_name(std::string text) {
  for (char& c : text) {
    if (!name_char(c)) c = '-';
  }
  while (!text.empty() && (text.front() == '.' || text.front() == '-')) text.erase(0, 1);
  return text;
}

Status check_runtime_name(const std::string& name) {
  if (valid_name(name)) return {};
  return fail(ErrorKind::usage, fmt::format("\"{}\" cannot name a runtime", name),
              "Use letters, digits, '.', '-', '_' or '+', not starting with '.'; current, native, zluda and auto are taken by zcuda.");
}

namespace {

// Every entry under `dir`, sorted, with size and SHA-256 for files; symlinks are not followed.
Result<std::vector<archive::WrittenEntry>> hash_tree(const fs::path& dir) {
  std::vector<archive::WrittenEntry> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return std::unexpected(io_error("read", dir, ec));
  for (; it != end; it.increment(ec)) {
    if (ec) return std::unexpected(io_error("read", dir, ec));
    archive::WrittenEntry entry;
    entry.path = generic_path_to_utf8(it->path().lexically_relative(dir));
    const auto status = it->symlink_status(ec);
    if (fs::is_symlink(status)) {
      entry.type = Type::symlink;
      entry.link_target = generic_path_to_utf8(fs::read_symlink(it->path(), ec));
    } else if (fs::is_directory(status)) {
      entry.type = Type::directory;
    } else if (fs::is_regular_file(status)) {
      entry.size = fs::file_size(it->path(), ec);
      auto digest = sha256_file(it->path());
      if (!digest) return std::unexpected(digest.error());
      entry.sha256 = *digest;
    } else {
      continue;  // sockets, devices: nothing a runtime loads
    }
    out.push_back(std::move(entry));
  }
  std::ranges::sort(out, {}, &archive::WrittenEntry::path);
  return out;
}

bool name_taken(const home::Home& home, const std::string& name) {
  std::error_code ec;
  return fs::exists(layout::receipt_path(home, "zluda", name), ec) || fs::exists(layout::version_dir(home, "zluda", name), ec);
}

}  // namespace

std::string default_adoption_name(const fs::path& dir, const family::Identity& identity) {
  if (identity.release && identity.family != family::Family::unknown) {
    return sanitized_runtime_name(fmt::format("{}-{}", family::to_string(identity.family), *identity.release));
  }
  // An application's folder is mostly called zluda or .zluda: then the application's folder names it.
  std::string folder = sanitized_runtime_name(path_to_utf8(dir.filename()));
  if (folder.empty() || reserved(folder)) {
    const std::string app = sanitized_runtime_name(path_to_utf8(dir.parent_path().filename()));
    folder = (app.empty() ? std::string("adopted") : app) + "-zluda";
  }
  return folder;
}

Result<Adoption> adopt(const fs::path& given, const std::string& name, const home::Home& home, platform::Os os) {
  std::error_code ec;
  fs::path dir = fs::absolute(given, ec).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "dir/" names the folder itself
  auto identity = family::identify_runtime(dir, os);
  if (!identity) {
    Error error = identity.error();
    error.message = "Cannot adopt " + path_to_utf8(dir) + ": " + error.message;
    return std::unexpected(error);
  }
  const std::string chosen = name.empty() ? default_adoption_name(dir, *identity) : name;
  if (auto usable = check_runtime_name(chosen); !usable) return std::unexpected(usable.error());
  if (name_taken(home, chosen)) {
    return fail(ErrorKind::usage, fmt::format("The runtime name \"{}\" is already taken by an install or an adoption", chosen),
                "Pick another with --name NAME, or forget the old one with 'zcuda install --remove " + chosen + "'.");
  }
  auto files = hash_tree(dir);
  if (!files) return std::unexpected(files.error());

  manifest::Artifact artifact;
  artifact.id = "zluda-adopted-" + chosen;
  artifact.component = "zluda";
  artifact.version = chosen;
  Receipt receipt = make_receipt(artifact, std::move(*files), "adopted");
  receipt.archive = "folder";
  receipt.entry = nullptr;
  receipt.adopted_dir = path_to_utf8(dir);
  receipt.family = family::to_json(*identity);
  fs::create_directories(layout::component_dir(home, "zluda"), ec);
  if (auto written = write_receipt(layout::receipt_path(home, "zluda", chosen), receipt); !written) return std::unexpected(written.error());
  return Adoption{chosen, dir, *identity, std::move(receipt)};
}

Result<std::optional<AdoptedRuntime>> find_adopted(const home::Home& home, const std::string& name) {
  if (!valid_name(name)) return std::optional<AdoptedRuntime>{};
  auto receipt = read_receipt(home, "zluda", name);
  if (!receipt || !receipt->adopted_dir) return std::optional<AdoptedRuntime>{};
  const fs::path dir = path_from_utf8(*receipt->adopted_dir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(ErrorKind::not_found, fmt::format("The adopted runtime {} is gone: {} is no longer a folder", name, dir),
                fmt::format("Adopt the folder's new place with 'zcuda install --adopt DIR', or forget it with 'zcuda install --remove {}'.", name));
  }
  return std::optional<AdoptedRuntime>{AdoptedRuntime{name, dir, quick_check(*receipt, dir), layout::receipt_path(home, "zluda", name)}};
}

std::string changed_warning(const AdoptedRuntime& runtime) {
  return fmt::format(
      "the adopted runtime {} changed since it was adopted ({}); re-adopt it: zcuda install --remove {} && zcuda install --adopt {} --name {}",
      runtime.name, fmt::join(runtime.changed, ", "), runtime.name, path_to_utf8(runtime.dir), runtime.name);
}

}  // namespace zcuda::install
