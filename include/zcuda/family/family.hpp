#pragma once
// Which ZLUDA a runtime folder (or one library file) is: upstream's (vosen/ZLUDA) or
// lshqqytiger's, told from the files themselves (names, PE exports, version resources, digests
// of known releases), and the refusal of a launch that would load both into one process
// (docs/families.md).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::family {

// A lineage of ZLUDA builds whose files are not interchangeable. Not a CUDA library family
// (stage::Family: cuBLAS, cuDNN, ...).
enum class Family { upstream, lshqqytiger, unknown };
// "upstream", "lshqqytiger", "unknown": the words records and --json use.
std::string_view to_string(Family family);
std::optional<Family> family_from_word(std::string_view word);

// What a folder of ZLUDA files is, and why zcuda thinks so.
struct Identity {
  Family family = Family::unknown;
  std::optional<std::string> release;  // the release or nightly, where the files tell
  std::vector<std::string> evidence;   // one line per fact that decided (or failed to decide) it
  bool has_32bit = false;              // a `32` folder with ZLUDA's 32-bit files
  bool operator==(const Identity&) const = default;
};
nlohmann::json to_json(const Identity& identity);
// "upstream family, release v6", "unknown family": how detect and verify name it in a line.
std::string summary(const Identity& identity);
// Reads to_json's form back (records that keep an identity: verify results); a family word zcuda
// does not know is refused.
void from_json(const nlohmann::json& in, Identity& identity);

// What an install receipt recorded of a file: its size and SHA-256. Believed only while the file
// on disk (a regular file, not a link) still has that size; then its bytes are not read, so that
// a launch never hashes a 68 MB nvcuda.dll again.
struct RecordedFile {
  std::uint64_t size = 0;
  std::string sha256;
};
// Path relative to the runtime folder, '/'-separated ("nvcuda.dll", "32/nvcuda.dll") -> record.
using RecordedDigests = std::map<std::string, RecordedFile>;
// What an install receipt says of a runtime folder (launch::recorded_install): its files, and the
// upstream release it names (a pinned archive's version, or what zcuda found when it installed or
// adopted the folder). The release is believed like a digest: while the driver keeps its size.
struct Recorded {
  RecordedDigests files;
  std::optional<std::string> release = std::nullopt;
  std::string release_source = {};  // how the receipt knows, for the evidence line
};

// The family of a runtime folder. Fails when the folder does not exist or holds no ZLUDA
// library; a folder whose files do not tell is Family::unknown, never a guess. `recorded`: what
// its install receipt holds, used instead of reading the bytes again.
Result<Identity> identify_runtime(const std::filesystem::path& dir, platform::Os os, const Recorded& recorded = {});

// One library file: the family that built it, or nullopt when it is not a ZLUDA library (an
// NVIDIA original, say).
struct LibraryIdentity {
  std::filesystem::path path;
  Family family = Family::unknown;
  std::string evidence;
  std::optional<std::string> release;  // when its digest is a known release file's
};
// `recorded`: the file's receipt entry, believed while the size on disk matches it.
std::optional<LibraryIdentity> identify_library(const std::filesystem::path& file, platform::Os os,
                                                const std::optional<RecordedFile>& recorded = std::nullopt);

// The ZLUDA libraries among a folder's CUDA-named files (cublas64_11.dll, nvcuda.dll, ...),
// sorted by path; NVIDIA's originals and other files are left out.
// `listings`: where a launch keeps the folders it listed (nothing: list now).
std::vector<LibraryIdentity> zluda_libraries_in(const std::filesystem::path& folder, platform::Os os, platform::FolderListings* listings = nullptr);

// Refuses (its own exit code) a launch that would put two families into one process: the
// runtime launched with, and the ZLUDA libraries already sitting in the folders the program
// loads CUDA libraries from (its own folder, a profile's torch/lib). The error names both
// families, the files, and the command that would work.
// `placed_by_zcuda`: files a stage journal says zcuda itself placed there (a restage replaces them).
Status check_not_mixed(const Identity& runtime, const std::vector<std::filesystem::path>& library_folders, platform::Os os,
                       const std::vector<std::filesystem::path>& placed_by_zcuda = {}, platform::FolderListings* listings = nullptr);

// What each family is and does when launched, as data (manifests/runtime-families.json; every
// fact from the family's own source, cited in docs/families.md).
struct Facts {
  Family family = Family::unknown;
  std::string project;                                 // the family's public repository
  std::string default_cc;                              // the compute capability it reports unless told otherwise
  std::string older_default_cc;                        // what releases before `older_default_cc_before` report instead
  std::string older_default_cc_before;                 // the first release with default_cc ("v7-preview.8"); empty: always
  std::vector<std::string> cc_variables;               // variables that change it ("ZLUDA_CC", "ZLUDA_SM"); empty: none
  std::string cc_variables_since;                      // the first release that reads them ("v6-preview.63"); empty: every release
  std::vector<std::string> variables;                  // every variable the family's libraries read
  std::string launch_windows, launch_linux;            // how it is started
  std::vector<std::string> launcher_sets;              // NAME=VALUE its own launcher adds
  std::vector<std::string> serves;                     // the library names it ships
  std::vector<std::string> only_names;                 // names only this family ships (tell a folder apart)
  std::map<std::string, std::string> app_copies;       // its file -> the CUDA name applications copy it under
  std::map<std::string, std::string> release_commits;  // commit the driver embeds -> the release tag built from it
};
// nullopt for Family::unknown.
std::optional<Facts> facts(Family family);

// The compute capability a runtime of this family and release reports when no variable changes
// it: the family's default, or the older one for a release known to predate it (upstream's v6
// and v7-preview.1 to .7 report 8.8, later ones 8.5). An unknown release gets the current default.
std::string default_cc(const Facts& facts, const std::optional<std::string>& release);

// Whether upstream release `release` ("v6", "v6-preview.79", "v7-preview.10") came before `bound`;
// false when either is not such a name (a nightly, a user's own label).
bool release_before(std::string_view release, std::string_view bound);
nlohmann::json to_json(const Facts& facts);

// A file of a known release, by digest (manifests/runtime-families.json "known_files").
struct KnownFile {
  Family family = Family::unknown;
  std::string release;
  std::string name;
  std::uint64_t size = 0;
  std::string sha256;
};
const std::vector<KnownFile>& known_files();

// The variables that change the compute capability a runtime of this family and release reads:
// upstream's before cc_variables_since (v6-preview.63, vosen/ZLUDA#620) read none and report a
// fixed 8.8. An unknown release is taken to read them, as today's releases do.
std::vector<std::string> cc_variables_read(const Facts& facts, const std::optional<std::string>& release);

// "8.6" -> (8, 6); "8" -> (8, 0); "8.6.1" -> (8, 6): as upstream's compute_capability() parses
// (zluda_common/src/constants.rs: split on '.', minor "0" when absent, the rest ignored).
std::optional<std::pair<int, int>> parse_cc(std::string_view text);

// The variable a runtime reads the compute capability from, as upstream does: the first of
// `variables` that is set at all wins, even when it is empty or does not parse (then the default
// applies), so an empty ZLUDA_CC stops ZLUDA_SM from being read (std::env::var("ZLUDA_CC")
// .or_else(ZLUDA_SM) falls through only when ZLUDA_CC is absent). `lookup` answers a variable's
// value (the launch environment, not necessarily the process's).
struct CcSetting {
  std::string variable;
  std::string value;
  std::optional<std::pair<int, int>> parsed;  // unset: upstream falls back to its default
};
template <class Lookup>
std::optional<CcSetting> cc_setting_read(const std::vector<std::string>& variables, Lookup&& lookup) {
  for (const auto& name : variables) {
    if (auto value = lookup(name)) return CcSetting{name, *value, parse_cc(*value)};
  }
  return std::nullopt;
}

}  // namespace zcuda::family
