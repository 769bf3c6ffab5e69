#pragma once
// Which ZLUDA a runtime folder (or one library file) is: upstream's (vosen/ZLUDA) or
// lshqqytiger's, told from the files themselves (names, PE exports, version resources, digests
// of known releases), and the refusal of a launch that would load both into one process
// (docs/families.md).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
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
};
nlohmann::json to_json(const Identity& identity);

// The family of a runtime folder. Fails when the folder does not exist or holds no ZLUDA
// library; a folder whose files do not tell is Family::unknown, never a guess.
Result<Identity> identify_runtime(const std::filesystem::path& dir, platform::Os os);

// One library file: the family that built it, or nullopt when it is not a ZLUDA library (an
// NVIDIA original, say).
struct LibraryIdentity {
  std::filesystem::path path;
  Family family = Family::unknown;
  std::string evidence;
};
std::optional<LibraryIdentity> identify_library(const std::filesystem::path& file, platform::Os os);

// Refuses (its own exit code) a launch that would put two families into one process: the
// runtime launched with, and the ZLUDA libraries already sitting in the folders the program
// loads CUDA libraries from (its own folder, a profile's torch/lib). The error names both
// families, the files, and the command that would work.
Status check_not_mixed(const Identity& runtime, const std::vector<std::filesystem::path>& library_folders, platform::Os os);

}  // namespace zcuda::family
