#include <zcuda/install/adopt.hpp>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/base/io_error.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/base/units.hpp>
#include <zcuda/install/runtime_files.hpp>

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

// A ZLUDA folder holds tens of files; an application's whole tree given by mistake holds many
// thousands, and hashing it would take minutes and make a receipt every later use reads.
constexpr std::size_t kMaxAdoptedEntries = 5000;
constexpr std::uint64_t kMaxAdoptedBytes = 8ull << 30;

Error too_large(const fs::path& dir, const std::string& what) {
  return Error{ErrorKind::invalid_input,
               fmt::format("{} holds {}: it is not a ZLUDA folder", dir, what),
               "Give the folder that holds ZLUDA's nvcuda.dll (libcuda.so on Linux) itself, not the application's folder.",
               {}};
}

// Every entry under `dir`, sorted, with size and SHA-256 for files; symlinks are not followed.
Result<std::vector<archive::WrittenEntry>> hash_tree(const fs::path& dir) {
  std::vector<archive::WrittenEntry> out;
  std::uint64_t bytes = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return std::unexpected(io_error("read", dir, ec));
  for (; it != end; it.increment(ec)) {
    if (ec) return std::unexpected(io_error("read", dir, ec));
    if (out.size() >= kMaxAdoptedEntries) return std::unexpected(too_large(dir, fmt::format("more than {} entries", kMaxAdoptedEntries)));
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
      bytes += entry.size;
      if (bytes > kMaxAdoptedBytes) return std::unexpected(too_large(dir, fmt::format("more than {}", format_bytes(kMaxAdoptedBytes))));
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

// The driver library (nvcuda.dll, libcuda.so*) must be a real shared library inside the folder: an
// empty file, or a link to a file elsewhere (/etc/passwd), is no runtime whatever its name.
Status check_driver(const fs::path& dir, platform::Os os) {
  std::error_code ec;
  const fs::path files = runtime_files_dir(dir).value_or(dir);
  for (const char* name : {"nvcuda.dll", "libcuda.so", "libcuda.so.1", "libnvcuda.so"}) {
    const fs::path driver = files / name;
    if (!fs::exists(fs::symlink_status(driver, ec))) continue;
    const fs::path real = fs::weakly_canonical(driver, ec);
    const auto inside = real.lexically_relative(fs::weakly_canonical(dir, ec));
    if (ec || inside.empty() || *inside.begin() == "..") {
      return fail(ErrorKind::invalid_input, fmt::format("{} is a link to {}, outside the folder: not a runtime to adopt", driver, real),
                  "Adopt the folder that really holds ZLUDA's files.");
    }
    std::string head(64, '\0');
    std::ifstream in(real, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    const bool library = in.gcount() == static_cast<std::streamsize>(head.size()) && (head.starts_with("MZ") || head.starts_with("\x7f"
                                                                                                                                 "ELF"));
    if (!library) {
      return fail(ErrorKind::invalid_input, fmt::format("{} is not a shared library (empty, or neither PE nor ELF): not a runtime to adopt", driver),
                  "The folder's ZLUDA files are damaged or were replaced: reinstall the application's ZLUDA, then adopt it again.");
    }
    return {};
  }
  (void)os;
  return {};
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
  if (auto driver = check_driver(dir, os); !driver) return std::unexpected(driver.error());
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
      runtime.name, fmt::join(runtime.changed, ", "), runtime.name, runtime.dir, runtime.name);
}

}  // namespace zcuda::install
