// Telling a ZLUDA folder or library file apart by its contents (docs/families.md):
// - lshqqytiger's nvcuda.dll exports zluda_get_nightly_flag and zluda_get_hip_object
//   (lshqqytiger/ZLUDA zluda/src/lib.rs); upstream's exports only the CUDA API.
// - lshqqytiger's DLLs link rocBLAS, rocSPARSE, hipFFT, hipRTC, ... at load time; upstream's
//   Windows builds load those at run time (ext/*-sys/build.rs link them only off Windows) and,
//   since v6-preview, delay-load amdhip64_7.dll (ext/hip_runtime-sys/build.rs).
// - upstream's Linux release rewrites DT_NEEDED to unversioned names (libamdhip64.so; xtask
//   strip_rocm_versions_from_dt_needed).
// - the names only one family ships, and the digests of known release files.
// An NVIDIA original (its version resource names NVIDIA) is not a ZLUDA library.
#include <algorithm>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/family/family.hpp>

#include "library_names.hpp"

namespace zcuda::family {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kLshqqytigerExports[] = {"zluda_get_nightly_flag", "zluda_get_hip_object"};

// ROCm libraries that only lshqqytiger's Windows DLLs import at load time. amdhip64 is not one:
// upstream's v4 and v5 imported amdhip64_6.dll at load time too.
constexpr std::string_view kRocmLibraryPrefixes[] = {"rocblas", "rocsparse", "rocsolver", "hipfft", "hipblaslt", "libhipblaslt", "miopen", "hiprtc"};

LibraryIdentity found(const fs::path& file, Family family, std::string evidence) {
  LibraryIdentity out;
  out.path = file;
  out.family = family;
  out.evidence = std::move(evidence);
  return out;
}

bool starts_with_any(std::string_view name, std::span<const std::string_view> prefixes) {
  return std::ranges::any_of(prefixes, [&](std::string_view p) { return name.starts_with(p); });
}

std::optional<std::string> find_lower(const std::vector<std::string>& names, auto&& pred) {
  for (const auto& n : names) {
    std::string lower = ascii_lower(n);
    if (pred(lower)) return n;
  }
  return std::nullopt;
}

bool is_driver(const fs::path& file, platform::Os os) { return is_driver_name(ascii_lower(path_to_utf8(file.filename())), os); }

// A receipt entry is believed while the file (of `size` bytes on disk) is still a regular file,
// not a link, of the size it recorded: for its digest and for the release it names alike.
bool believed(const fs::path& file, std::uint64_t size, const RecordedFile& recorded) {
  std::error_code ec;
  return recorded.size == size && fs::is_regular_file(fs::symlink_status(file, ec));
}

// The release an install receipt names, believed while a driver it recorded is: reading a 68 MB
// driver for its commit costs about 80 ms a launch (docs/families.md).
bool release_from_receipt(const std::vector<fs::path>& files, platform::Os os, const Recorded& recorded, Identity& identity) {
  if (!recorded.release) return false;
  const bool driver_believed = std::ranges::any_of(files, [&](const fs::path& file) {
    if (!is_driver(file, os)) return false;
    const auto entry = recorded.files.find(path_to_utf8(file.filename()));
    if (entry == recorded.files.end()) return false;
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    return !ec && believed(file, size, entry->second);
  });
  if (!driver_believed) return false;
  identity.release = *recorded.release;
  identity.evidence.push_back(fmt::format("its install receipt names release {} ({})", *recorded.release, recorded.release_source));
  return true;
}

// Upstream's driver embeds the commit it was built from (VERGEN_GIT_SHA); a release tag's commit
// names the release where no digest did (an archive from --url, an adopted folder).
void release_from_commit(const std::vector<fs::path>& files, platform::Os os, Identity& identity) {
  const auto upstream = facts(Family::upstream);
  if (!upstream || upstream->release_commits.empty()) return;
  const auto driver = std::ranges::find_if(files, [&](const fs::path& f) { return is_driver(f, os); });
  if (driver == files.end()) return;
  std::set<std::string> wanted;
  for (const auto& [commit, release] : upstream->release_commits) wanted.insert(commit);
  const auto commits = binfmt::known_commit_ids(*driver, wanted);
  if (!commits || commits->empty()) return;
  identity.release = upstream->release_commits.at(commits->front());
  identity.evidence.push_back(
      fmt::format("{} was built from commit {}, upstream's tag {}", path_to_utf8(driver->filename()), commits->front(), *identity.release));
}

struct KnownMatch {
  KnownFile known;
  bool from_receipt = false;  // the digest is the receipt's, not read from the bytes
};

// The file's known-release entry, hashing it only when its size matches one and no receipt
// entry of that size vouches for its digest.
std::optional<KnownMatch> known_by_digest(const fs::path& file, const std::optional<RecordedFile>& recorded) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return std::nullopt;
  std::optional<std::string> digest;
  const bool from_receipt = recorded && believed(file, size, *recorded);
  if (from_receipt) digest = recorded->sha256;
  for (const auto& known : known_files()) {
    if (known.size != size) continue;
    if (!digest) {
      auto hashed = sha256_file(file);
      if (!hashed) return std::nullopt;
      digest = *hashed;
    }
    if (*digest == known.sha256) return KnownMatch{known, from_receipt};
  }
  return std::nullopt;
}

std::optional<LibraryIdentity> from_pe(const fs::path& file, const binfmt::Imports& pe) {
  if (pe.version) {
    for (const char* key : {"CompanyName", "ProductName"}) {
      auto it = pe.version->strings.find(key);
      if (it != pe.version->strings.end() && ascii_lower(it->second).find("nvidia") != std::string::npos) return std::nullopt;
    }
  }
  for (std::string_view name : kLshqqytigerExports) {
    if (std::ranges::find(pe.exports, name) != pe.exports.end()) {
      return found(file, Family::lshqqytiger, fmt::format("{} exports {} (lshqqytiger's nvcuda.dll)", path_to_utf8(file.filename()), name));
    }
  }
  if (auto rocm = find_lower(pe.needed, [](std::string_view n) { return starts_with_any(n, kRocmLibraryPrefixes); })) {
    return found(
        file, Family::lshqqytiger,
        fmt::format("{} imports {} at load time (lshqqytiger's DLLs do; upstream's load it at run time)", path_to_utf8(file.filename()), *rocm));
  }
  if (auto hip = find_lower(pe.delay_needed, [](std::string_view n) { return n == "amdhip64_7.dll"; })) {
    return found(file, Family::upstream, fmt::format("{} delay-loads {} (upstream's hip_runtime-sys does)", path_to_utf8(file.filename()), *hip));
  }
  auto any_hip = [](std::string_view n) { return n.starts_with("amdhip64") || starts_with_any(n, kRocmLibraryPrefixes); };
  if (auto hip = find_lower(pe.needed, any_hip); hip || find_lower(pe.delay_needed, any_hip)) {
    return found(file, Family::unknown,
                 fmt::format("{} links the HIP runtime, but nothing in it says which ZLUDA built it", path_to_utf8(file.filename())));
  }
  return std::nullopt;
}

std::optional<LibraryIdentity> from_elf(const fs::path& file, const binfmt::Imports& elf) {
  if (auto hip = find_lower(elf.needed, [](std::string_view n) { return n == "libamdhip64.so"; })) {
    return found(file, Family::upstream,
                 fmt::format("{} needs the unversioned {} (upstream's release packaging rewrites it)", path_to_utf8(file.filename()), *hip));
  }
  if (find_lower(elf.needed, [](std::string_view n) { return n.starts_with("libamdhip64.so"); })) {
    return found(file, Family::unknown,
                 fmt::format("{} links the HIP runtime, but nothing in it says which ZLUDA built it", path_to_utf8(file.filename())));
  }
  return std::nullopt;
}

}  // namespace

std::optional<LibraryIdentity> identify_library(const fs::path& file, platform::Os, const std::optional<RecordedFile>& recorded) {
  if (auto match = known_by_digest(file, recorded)) {
    const KnownFile& known = match->known;
    auto library = found(file, known.family,
                         fmt::format("{} is {} of {}'s release {} (SHA-256 {}{})", path_to_utf8(file.filename()), known.name, to_string(known.family),
                                     known.release, known.sha256, match->from_receipt ? ", as its install receipt records" : ""));
    library.release = known.release;
    return library;
  }
  auto read = binfmt::read_imports(file);
  if (!read || !*read) return std::nullopt;
  const binfmt::Imports& imports = **read;
  return imports.format == binfmt::Format::pe ? from_pe(file, imports) : from_elf(file, imports);
}

Result<Identity> identify_runtime(const fs::path& dir, platform::Os os, const Recorded& recorded) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(ErrorKind::not_found, fmt::format("{} is not a folder", path_to_utf8(dir)),
                "Give the ZLUDA folder: the one that holds nvcuda.dll (Windows) or libcuda.so (Linux).");
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) || it->is_symlink(ec)) files.push_back(it->path());
  }
  std::ranges::sort(files);
  const bool has_driver = std::ranges::any_of(files, [&](const fs::path& f) { return is_driver(f, os); });
  if (!has_driver) {
    std::string hint = "Give the folder that holds ZLUDA's nvcuda.dll (Windows) or libcuda.so (Linux).";
    if (fs::exists(dir / "zluda" / (os == platform::Os::windows ? "nvcuda.dll" : "libcuda.so"), ec))
      hint = fmt::format("Its zluda folder holds one: {}", path_to_utf8(dir / "zluda"));
    return fail(ErrorKind::not_found,
                fmt::format("{} holds no ZLUDA library (no {})", path_to_utf8(dir), os == platform::Os::windows ? "nvcuda.dll" : "libcuda.so"), hint);
  }

  Identity identity;
  std::set<Family> by_content, by_name;
  // Looked up once, not per file: each Facts is a copy (with upstream's release table).
  const std::optional<Facts> known_families[] = {facts(Family::upstream), facts(Family::lshqqytiger)};
  for (const auto& file : files) {
    const std::string name = ascii_lower(path_to_utf8(file.filename()));
    for (const auto& f : known_families) {
      if (!f) continue;
      if (std::ranges::any_of(f->only_names, [&](const std::string& n) { return ascii_lower(n) == name; })) {
        by_name.insert(f->family);
        identity.evidence.push_back(fmt::format("{} is a name only {} ships", path_to_utf8(file.filename()), to_string(f->family)));
      }
    }
    if (!is_cuda_library_name(name, os)) continue;
    const auto entry = recorded.files.find(path_to_utf8(file.filename()));
    if (auto library = identify_library(file, os, entry == recorded.files.end() ? std::nullopt : std::optional(entry->second))) {
      identity.evidence.push_back(library->evidence);
      if (library->family != Family::unknown) by_content.insert(library->family);
      if (library->release && !identity.release) identity.release = library->release;
    }
  }
  const std::set<Family>& deciding = by_content.empty() ? by_name : by_content;
  if (deciding.size() == 1) {
    identity.family = *deciding.begin();
  } else if (deciding.size() > 1) {
    identity.evidence.push_back("the folder holds files of both families; zcuda does not guess which one a program would load");
  } else {
    identity.evidence.push_back("no file says which family built it");
  }
  if (identity.family == Family::upstream && !identity.release && !release_from_receipt(files, os, recorded, identity)) {
    release_from_commit(files, os, identity);
  }
  if (identity.family == Family::lshqqytiger && !identity.release && fs::exists(dir / "cublasLt.dll", ec)) {
    identity.release = "nightly";
    identity.evidence.push_back("cublasLt.dll is present: lshqqytiger builds it only for nightlies (zluda_blaslt windows_nightly)");
  }
  identity.has_32bit = fs::exists(dir / "32" / "nvcuda.dll", ec);
  return identity;
}

}  // namespace zcuda::family
