// Which files of a program carry CUDA device code (binfmt::has_fatbin decides per file).
#include <algorithm>
#include <cctype>

#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/warmup/warmup.hpp>

namespace zcuda::warmup {

namespace fs = std::filesystem;

std::vector<fs::path> search_folders(const fs::path& app_or_folder) {
  std::error_code ec;
  fs::path base = fs::absolute(app_or_folder, ec).lexically_normal();
  if (!fs::is_directory(base, ec)) base = base.parent_path();
  std::vector<fs::path> candidates = {base, base / "lib", base / "torch" / "lib"};
  if (base.filename() == "bin") candidates.push_back(base.parent_path() / "lib");
  std::vector<fs::path> out;
  for (const auto& c : candidates) {
    if (fs::is_directory(c, ec) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

namespace {

// Programs and libraries by name: .exe, .dll, .so, .so.N..., and fatbin/cubin files (only to say
// zluda_precompile skips them). Other files (scripts, data, a Linux bin/ folder's tools) are not read.
bool binary_name(std::string_view name) {
  for (std::string_view ext : {".exe", ".dll", ".so", ".fatbin", ".cubin"}) {
    if (name.size() >= ext.size() && ascii_iequals(name.substr(name.size() - ext.size()), ext)) return true;
  }
  return name.find(".so.") != std::string_view::npos;
}

}  // namespace

std::optional<std::string> precompile_skips(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[5] = {};
  in.read(head, sizeof head);
  if (in.gcount() >= 2 && head[0] == 'M' && head[1] == 'Z') return std::nullopt;
  if (in.gcount() == 5 && std::string_view(head, 4) ==
                              "\x7f"
                              "ELF") {
    if (head[4] == 2) return std::nullopt;
    return "a 32-bit ELF file: zluda_precompile reads ELF files as 64-bit only";
  }
  return "neither a PE nor an ELF file (a standalone fatbin or cubin): zluda_precompile reads only programs and libraries";
}

Scan find_cuda_binaries(const fs::path& app_or_folder, std::size_t limit, platform::FolderListings* listings) {
  Scan scan;
  std::error_code app_ec;
  // The program itself counts whatever its name (a Linux executable has no extension).
  const fs::path app = fs::is_regular_file(app_or_folder, app_ec) ? fs::absolute(app_or_folder, app_ec).lexically_normal() : fs::path();
  scan.folders = search_folders(app_or_folder);
  std::vector<fs::path> seen;  // canonical paths: lib.so, lib.so.1 and lib.so.1.2 are one file
  for (const auto& folder : scan.folders) {
    std::vector<fs::path> files;
    const std::string app_name = path_to_utf8(app.filename());
    platform::FolderListings own;
    const auto& entries = (listings != nullptr ? *listings : own).list(folder);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      // The name first: in a folder like /usr/bin, asking each entry's type would stat them all.
      const std::string& name = entry.name;
      if (!binary_name(name) && (app_name.empty() || name != app_name || folder / path_from_utf8(name) != app)) continue;
      const fs::path file = folder / path_from_utf8(name);
      std::error_code entry_ec;
      if (fs::is_regular_file(file, entry_ec)) files.push_back(file);
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (scan.binaries.size() >= limit) return scan;
      std::error_code canon_ec;
      const fs::path real = fs::canonical(file, canon_ec);
      if (canon_ec || std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
      seen.push_back(real);
      auto found = binfmt::file_has_fatbin(file);
      if (!found) {
        spdlog::debug("warmup: {}", found.error().message);
        scan.unreadable.push_back(found.error().message);
        continue;
      }
      if (!*found) continue;
      if (auto skipped = precompile_skips(file)) {
        scan.not_read.push_back(fmt::format("{}: {}", file, *skipped));
      } else {
        scan.binaries.push_back(file);
      }
    }
  }
  return scan;
}

}  // namespace zcuda::warmup
