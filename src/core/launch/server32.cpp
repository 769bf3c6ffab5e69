// Whether a 32-bit launch will find a zluda64_server.exe of its nvcuda.dll's build
// (server32.hpp says how ZLUDA's 32-bit DLL looks for it).
#include <zcuda/launch/server32.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/binfmt/binfmt.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

fs::path server_for_dll_folder(const fs::path& dll_folder, const fs::path& zluda64_path) {
  std::error_code ec;
  const fs::path beside = dll_folder.parent_path() / kServer32Name;
  if (fs::is_regular_file(beside, ec)) return beside;
  return zluda64_path / kServer32Name;
}

Status check_server32(const fs::path& dll, const std::vector<fs::path>& dll_folders, const fs::path& runtime64) {
  auto commits = binfmt::embedded_commit_ids(dll);
  if (!commits) return std::unexpected(commits.error());
  std::vector<fs::path> checked;
  for (const auto& folder : dll_folders) {
    const fs::path server = server_for_dll_folder(folder, runtime64);
    if (std::find(checked.begin(), checked.end(), server) != checked.end()) continue;
    checked.push_back(server);
    std::error_code ec;
    if (!fs::is_regular_file(server, ec)) {
      return fail(
          ErrorKind::not_found,
          fmt::format("this ZLUDA ({}) has no {}, which its 32-bit nvcuda.dll starts to run CUDA for a 32-bit program", runtime64, kServer32Name),
          "Use a complete ZLUDA build: its folder holds zluda64_server.exe and the 32 folder (vosen/ZLUDA's release archives do).");
    }
    if (commits->empty()) continue;  // a DLL that names no commit cannot be compared
    bool same_build = false;
    for (const auto& commit : *commits) {
      auto found = binfmt::file_contains(server, commit);
      if (!found) return std::unexpected(found.error());
      if (*found) {
        same_build = true;
        break;
      }
    }
    if (!same_build) {
      return fail(ErrorKind::unsupported,
                  fmt::format("{} and {} come from different ZLUDA builds (the DLL was built from commit {}, which the server does not "
                              "name)",
                              dll, server, commits->front()),
                  "ZLUDA's 32-bit nvcuda.dll refuses a zluda64_server.exe of another build (\"Git version mismatch between zluda and "
                  "zluda64_server\"). Keep the 32 folder and zluda64_server.exe of one release together, and remove a "
                  "zluda64_server.exe of another build from the folder above the program's.");
    }
  }
  return {};
}

}  // namespace zcuda::launch
