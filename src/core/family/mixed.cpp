// The refusal of a launch that would load two ZLUDA families into one process: upstream's
// redirect swaps libraries by file name, so a folder the program loads CUDA libraries from that
// already holds lshqqytiger's copies (a patched torch\lib) ends up beside upstream's nvcuda.dll,
// and the process fails with "zluda_get_nightly_flag not found" or worse
// (patientx/ComfyUI-Zluda#470).
#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/platform/folder_listing.hpp>

#include "library_names.hpp"

namespace zcuda::family {

namespace fs = std::filesystem;

std::vector<LibraryIdentity> zluda_libraries_in(const fs::path& folder, platform::Os os, platform::FolderListings* listings) {
  std::vector<LibraryIdentity> found;
  std::vector<fs::path> files;
  platform::FolderListings own;
  const auto& entries = (listings != nullptr ? *listings : own).list(folder);
  if (!entries) return found;
  // The name first: in a folder like /usr/bin, asking each entry's type would stat them all (and
  // sorting all of its names would cost more than the rest of the check).
  for (const auto& entry : *entries) {
    if (!ascii_icontains(entry.name, os == platform::Os::windows ? ".dll" : ".so") || !is_cuda_library_name(ascii_lower(entry.name), os)) continue;
    std::error_code type_ec;
    if (fs::is_regular_file(folder / path_from_utf8(entry.name), type_ec)) files.push_back(folder / path_from_utf8(entry.name));
  }
  std::ranges::sort(files);
  for (const auto& file : files) {
    if (auto library = identify_library(file, os)) found.push_back(std::move(*library));
  }
  return found;
}

Status check_not_mixed(const Identity& runtime, const std::vector<fs::path>& library_folders, platform::Os os,
                       const std::vector<fs::path>& placed_by_zcuda, platform::FolderListings* listings) {
  std::vector<LibraryIdentity> others;
  for (const auto& folder : library_folders) {
    for (auto& library : zluda_libraries_in(folder, os, listings)) {
      if (library.family == Family::unknown) continue;
      if (std::ranges::find(placed_by_zcuda, library.path.lexically_normal()) != placed_by_zcuda.end()) continue;
      others.push_back(std::move(library));
    }
  }
  // The family the process would end up with first: the runtime's when known, else the first
  // library's; any library of the other family mixes them.
  Family first = runtime.family;
  if (first == Family::unknown && !others.empty()) first = others.front().family;
  auto mismatch = std::ranges::find_if(others, [&](const LibraryIdentity& l) { return l.family != first; });
  if (first == Family::unknown || mismatch == others.end()) return {};

  const Family second = mismatch->family;
  std::string first_what = runtime.family != Family::unknown ? fmt::format("the ZLUDA runtime it launches with is {}'s", to_string(first))
                                                             : fmt::format("{} is {}'s", path_to_utf8(others.front().path), to_string(first));
  Error error{ErrorKind::mixed_family,
              fmt::format("This launch would load two ZLUDA families into one process: {}, and {} is {}'s", first_what, path_to_utf8(mismatch->path),
                          to_string(second)),
              std::string("Their files are not interchangeable (a program set up for lshqqytiger's build fails on upstream's with "
                          "'zluda_get_nightly_flag' not found). Launch with the family the program was set up for: its own ZLUDA folder, "
                          "`zcuda run --runtime-dir FOLDER -- PROGRAM`, or start it as its installer does, without zcuda's runtime: "
                          "`zcuda run --direct --no-stage -- PROGRAM`."),
              {}};
  for (const auto& line : runtime.evidence) error.notes.push_back("runtime: " + line);
  for (const auto& library : others) error.notes.push_back(library.evidence);
  return std::unexpected(std::move(error));
}

}  // namespace zcuda::family
