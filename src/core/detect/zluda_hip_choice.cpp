// Which amdhip64 upstream ZLUDA gets on Windows, read from files (nothing is loaded). Its
// nvcuda.dll delay-loads amdhip64_7.dll; before that load it loads the first performance library
// it finds, beside itself or in %HIP_PATH%\bin, so that the library brings the HIP runtime it was
// built for, then uses whichever amdhip64_7 or amdhip64_6 is loaded; only when none is does the
// delay load go ahead, falling back to amdhip64_6.dll when amdhip64_7.dll fails
// (vosen/ZLUDA at 8a7931be: zluda/src/os_win.rs, zluda_windows/src/lib.rs
// open_already_loaded_amdhip_probe_perflibs, try_load_from_self_or_hip).
#include "zluda_hip_choice.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::detect {

namespace fs = std::filesystem;

namespace {

// The amdhip64 a library imports, as named in its import table ("amdhip64_6.dll").
std::optional<std::string> hip_import(const fs::path& library) {
  auto read = binfmt::read_imports(library);
  if (!read || !*read) return std::nullopt;
  for (const auto& list : {(*read)->needed, (*read)->delay_needed}) {
    for (const auto& name : list) {
      const std::string lower = ascii_lower(name);
      if (lower == "amdhip64_7.dll" || lower == "amdhip64_6.dll") return lower;
    }
  }
  return std::nullopt;
}

}  // namespace

ZludaHipChoice zluda_hip_choice(const std::vector<fs::path>& library_folders, const fs::path& system_dir) {
  // The order upstream tries them in; the first that loads stops the search.
  constexpr std::array<const char*, 5> kPerfLibraries = {"hipblaslt.dll", "libhipblaslt.dll", "rocblas.dll", "rocsparse.dll", "miopen.dll"};
  for (const char* name : kPerfLibraries) {
    for (const auto& folder : library_folders) {
      const fs::path library = folder / name;
      if (!platform::is_file(library)) continue;
      auto runtime = hip_import(library);
      if (!runtime) continue;
      // LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | DEFAULT_DIRS: the library's own folder, then System32.
      for (const fs::path& where : {folder / *runtime, system_dir / *runtime}) {
        if (!platform::is_file(where)) continue;
        return {where, *runtime,
                fmt::format("ZLUDA loads {} first, which brings {} ({})", path_to_utf8(library), *runtime,
                            where.parent_path() == folder ? "beside it" : "from System32")};
      }
      // Its HIP runtime is missing: the library fails to load, and ZLUDA tries the next.
    }
  }
  for (const char* runtime : {"amdhip64_7.dll", "amdhip64_6.dll"}) {
    if (platform::is_file(system_dir / runtime)) {
      return {system_dir / runtime, runtime,
              library_folders.empty() ? fmt::format("no HIP performance library to load first: ZLUDA loads {} from System32", runtime)
                                      : fmt::format("no HIP performance library (hipBLASLt, rocBLAS, rocSPARSE, MIOpen) loads from {}: ZLUDA "
                                                    "loads {} from System32",
                                                    path_to_utf8(library_folders.front()), runtime)};
    }
  }
  return {};
}

}  // namespace zcuda::detect
