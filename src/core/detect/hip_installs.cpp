// HIP SDK (Windows) and ROCm (Linux) installs: where, which version, which of the math libraries
// ZLUDA maps onto are there, and whether rocBLAS and hipBLASLt carry kernels for each GPU.
#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/whole_number.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

#include "parsers.hpp"
#include "probes.hpp"

namespace zcuda::detect {

namespace fs = std::filesystem;

namespace {

struct Candidate {
  fs::path root;
  std::string found_via;
};

struct LibrarySpec {
  const char* component;
  std::vector<std::string_view> names;  // file names; a trailing '*' matches any suffix
};

// Called for every name of every library folder (thousands in /usr/lib/x86_64-linux-gnu): no copies.
bool name_matches(std::string_view file, std::string_view pattern) {
  if (!pattern.empty() && pattern.back() == '*') return file.starts_with(pattern.substr(0, pattern.size() - 1));
  return file == pattern;
}

std::string env_value(const platform::Environment& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? std::string() : it->second;
}

std::vector<fs::path> library_dirs(const fs::path& root, bool windows) {
  if (windows) return {root / "bin"};
  return {root / "lib", root / "lib64", root / "lib/x86_64-linux-gnu"};
}

const std::vector<LibrarySpec>& library_specs(bool windows) {
  static const std::vector<LibrarySpec> win = {
      {"hip-runtime", {"amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"}},
      {"rocblas", {"rocblas.dll"}},
      {"hipblaslt", {"hipblaslt.dll", "libhipblaslt.dll"}},
      {"rocsparse", {"rocsparse.dll"}},
      {"hipfft", {"hipfft.dll"}},
      {"miopen", {"MIOpen.dll"}},
      {"hipinfo", {"hipInfo.exe"}},
  };
  static const std::vector<LibrarySpec> linux = {
      {"hip-runtime", {"libamdhip64.so*"}}, {"rocblas", {"librocblas.so*"}}, {"hipblaslt", {"libhipblaslt.so*"}}, {"rocsparse", {"librocsparse.so*"}},
      {"hipfft", {"libhipfft.so*"}},        {"miopen", {"libMIOpen.so*"}},   {"hipinfo", {"hipInfo", "hipinfo"}}, {"rocm-smi", {"librocm_smi64.so*"}},
  };
  return windows ? win : linux;
}

// Linux ZLUDA links the unversioned names so one build serves ROCm 6 and 7 (vosen/ZLUDA
// xtask/src/main.rs); only a development package or a full ROCm install provides them.
struct ZludaName {
  const char* component;
  const char* name;
};
constexpr ZludaName kZludaNames[] = {{"hip-runtime", "libamdhip64.so"},
                                     {"rocblas", "librocblas.so"},
                                     {"hipblaslt", "libhipblaslt.so"},
                                     {"rocsparse", "librocsparse.so"},
                                     {"rocm-smi", "librocm_smi64.so"}};

// Version texts are read with plain string checks, not std::regex: every launch reads the HIP
// install's version, and compiling the expressions cost more than the rest of detection.

// "6.4" or "6.4.1": whole numbers joined by dots, two to `max_parts` of them.
bool dotted_version(std::string_view text, std::size_t max_parts = 3) {
  std::size_t parts = 0;
  for (std::size_t begin = 0;; ++parts) {
    const std::size_t dot = text.find('.', begin);
    if (!whole_number<std::uint64_t>(text.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin))) return false;
    if (dot == std::string_view::npos) return parts + 1 >= 2 && parts + 1 <= max_parts;
    begin = dot + 1;
  }
}

// The number after "#define NAME " in a header.
std::optional<std::string> defined_number(std::string_view header, std::string_view name) {
  const std::string key = "#define " + std::string(name) + " ";
  const std::size_t at = header.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = at + key.size();
  while (end < header.size() && header[end] >= '0' && header[end] <= '9') ++end;
  if (end == at + key.size()) return std::nullopt;
  return std::string(header.substr(at + key.size(), end - at - key.size()));
}

std::string read_version(const SystemView& view, const fs::path& root, const std::string& found_via, bool windows, std::string& source) {
  if (auto v = view.read_line(root / ".info/version"); v && !v->empty()) {
    source = ".info/version";
    return *v;
  }
  if (auto header = view.read(root / "include/hip/hip_version.h")) {
    const auto major = defined_number(*header, "HIP_VERSION_MAJOR");
    const auto minor = defined_number(*header, "HIP_VERSION_MINOR");
    if (major && minor) {
      source = "include/hip/hip_version.h";
      std::string v = *major + "." + *minor;
      if (const auto patch = defined_number(*header, "HIP_VERSION_PATCH")) v += "." + *patch;
      return v;
    }
  }
  // Distribution packages: the HIP runtime's file name carries the version (libamdhip64.so.5.7.1).
  if (found_via == "system") {
    constexpr std::string_view prefix = "libamdhip64.so.";
    for (const auto& dir : library_dirs(root, windows)) {
      const auto name = view.first_name(
          dir, [&](const std::string& n) { return n.starts_with(prefix) && dotted_version(std::string_view(n).substr(prefix.size()), 99); });
      if (name) {
        source = "library file name";
        return name->substr(prefix.size());
      }
    }
  }
  // The HIP SDK installs into ...\ROCm\<major.minor>; /opt/rocm-6.4.0 likewise.
  std::string leaf = path_to_utf8(root.filename());
  if (leaf.empty()) leaf = path_to_utf8(root.parent_path().filename());
  const std::string_view number = std::string_view(leaf).starts_with("rocm-") ? std::string_view(leaf).substr(5) : std::string_view(leaf);
  if (dotted_version(number)) {
    source = "folder name";
    return std::string(number);
  }
  return {};
}

// HIP_PATH first, then the versioned HIP_PATH_<major><minor> the installer also sets, newest first.
std::vector<std::pair<std::string, std::string>> hip_path_variables(const std::map<std::string, std::string>& variables) {
  std::vector<std::pair<std::string, std::string>> plain, versioned;
  for (const auto& [key, value] : variables) {
    const std::string_view name(key);
    if (ascii_iequals(name, "HIP_PATH")) plain.emplace_back(key, value);
    if (name.size() > 9 && ascii_iequals(name.substr(0, 9), "HIP_PATH_") && whole_number<std::uint64_t>(name.substr(9)))
      versioned.emplace_back(key, value);
  }
  std::sort(versioned.begin(), versioned.end(), [](auto& a, auto& b) { return compare_versions(a.first.substr(9), b.first.substr(9)) > 0; });
  plain.insert(plain.end(), versioned.begin(), versioned.end());
  return plain;
}

// A distribution's HIP runtime is reachable under its soname (libamdhip64.so.N, the link ldconfig
// makes) or the development link, so those names are looked up before /usr's library folders,
// which hold thousands of names, are listed: a machine without one lists none of them.
bool system_hip_present(const SystemView& view, const fs::path& root) {
  for (const auto& dir : library_dirs(root, false)) {
    if (view.exists(dir / "libamdhip64.so")) return true;
    for (int major = 1; major < 16; ++major) {
      if (view.exists(dir / fmt::format("libamdhip64.so.{}", major))) return true;
    }
  }
  return false;
}

std::vector<Candidate> candidates(const SystemView& view, const platform::Environment& env, const RegisteredEnvironment& registered, bool windows) {
  std::vector<Candidate> found;
  auto add = [&](const fs::path& root, const std::string& via) {
    if (!root.empty()) found.push_back({root, via});
  };
  if (windows) {
    for (const auto& [key, value] : hip_path_variables(env)) add(path_from_utf8(value), key);
    // Set by an installer after this process's environment was made (a terminal opened before
    // the HIP SDK was installed): still an install, and derive_findings says what to do.
    std::map<std::string, std::string> later;
    for (const auto& [key, variable] : registered) later[key] = variable.value;
    for (const auto& [key, value] : hip_path_variables(later)) {
      add(path_from_utf8(value), fmt::format("{} ({} environment)", key, platform::windows::to_string(registered.at(key).scope)));
    }
    std::string program_files = env_value(env, "ProgramFiles");
    if (program_files.empty()) program_files = "C:\\Program Files";
    fs::path rocm = path_from_utf8(program_files) / "AMD" / "ROCm";
    auto versions = view.list(rocm);
    std::sort(versions.begin(), versions.end(), [](auto& a, auto& b) { return compare_versions(a, b) > 0; });
    for (const auto& v : versions) add(rocm / path_from_utf8(v), "ProgramFiles");
  } else {
    add(path_from_utf8(env_value(env, "ROCM_PATH")), "ROCM_PATH");
    add(path_from_utf8(env_value(env, "HIP_PATH")), "HIP_PATH");
    add("/opt/rocm", "/opt/rocm");
    auto entries = view.list("/opt");
    std::vector<std::string> numbered;
    for (const auto& e : entries) {
      if (e.starts_with("rocm-")) numbered.push_back(e);
    }
    std::sort(numbered.begin(), numbered.end(), [](auto& a, auto& b) { return compare_versions(a.substr(5), b.substr(5)) > 0; });
    for (const auto& e : numbered) add(fs::path("/opt") / e, "/opt/rocm-*");
    add("/usr", "system");
  }
  return found;
}

std::vector<std::string> archs_in(const std::vector<std::string>& files, const std::regex& pattern) {
  std::set<std::string> archs;
  for (const auto& f : files) {
    for (std::sregex_iterator it(f.begin(), f.end(), pattern), end; it != end; ++it) archs.insert((*it)[1].str());
  }
  return {archs.begin(), archs.end()};
}

// Files of a kernel folder, including those of per-arch subfolders ("gfx1200/...").
std::vector<std::string> kernel_files(const SystemView& view, const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& name : view.list(dir)) {
    if (name.starts_with("gfx") && view.is_directory(dir / path_from_utf8(name))) {
      for (const auto& inner : view.list(dir / path_from_utf8(name))) files.push_back(name + "/" + inner);
    } else {
      files.push_back(name);
    }
  }
  return files;
}

std::vector<fs::path> kernel_dirs(const SystemView& view, const fs::path& root, bool windows, const char* library) {
  std::vector<fs::path> dirs;
  for (const auto& lib : library_dirs(root, windows)) {
    fs::path dir = lib / library / "library";
    if (view.is_directory(dir)) dirs.push_back(dir);
    // Debian's packages use <lib>/rocblas/<version>/library.
    for (const auto& sub : view.list(lib / library)) {
      const fs::path versioned = lib / library / path_from_utf8(sub) / "library";
      if (sub != "library" && view.is_directory(versioned)) dirs.push_back(versioned);
    }
  }
  return dirs;
}

// The kernel files of rocBLAS and hipBLASLt, per detected gfx. Thousands of names in a HIP SDK:
// a launch reads them only when something asks (add_kernel_support).
void read_kernel_support(const SystemView& view, const fs::path& root, bool windows, const std::vector<std::string>& gfxs, HipInstall& install) {
  static const std::regex tensile("TensileLibrary.*_(gfx[0-9a-f]+)\\.dat$");
  static const std::regex any_gfx("(gfx[0-9a-f]{3,4})");
  std::vector<std::string> rocblas_files, hipblaslt_files;
  for (const auto& dir : kernel_dirs(view, root, windows, "rocblas")) {
    for (auto& f : kernel_files(view, dir)) rocblas_files.push_back(f);
  }
  for (const auto& dir : kernel_dirs(view, root, windows, "hipblaslt")) {
    for (auto& f : kernel_files(view, dir)) hipblaslt_files.push_back(f);
  }
  install.rocblas_archs = archs_in(rocblas_files, tensile);
  install.hipblaslt_archs = archs_in(hipblaslt_files, any_gfx);
  for (const auto& gfx : gfxs) {
    KernelSupport k;
    for (const auto& f : rocblas_files) {
      std::string base = path_to_utf8(path_from_utf8(f).filename());
      if (base.starts_with("TensileLibrary") && base.ends_with("_" + gfx + ".dat")) {
        k.rocblas = true;
        k.rocblas_files.push_back(f);
      }
      if (base.find(gfx) != std::string::npos && (base.ends_with(".co") || base.ends_with(".hsaco"))) k.rocblas_code_objects = true;
    }
    for (const auto& f : hipblaslt_files) {
      // gfx1100 must not match gfx11000-like names of other archs: require a non-hex next char.
      auto pos = f.find(gfx);
      if (pos != std::string::npos && (pos + gfx.size() == f.size() || !std::isxdigit(static_cast<unsigned char>(f[pos + gfx.size()])))) {
        k.hipblaslt = true;
        if (k.hipblaslt_files.size() < 5) k.hipblaslt_files.push_back(f);
      }
    }
    install.kernels[gfx] = std::move(k);
  }
  install.kernels_read = true;
}

std::vector<std::string> amd_gfxs(const Profile& profile) {
  std::vector<std::string> gfxs;
  for (const auto& g : profile.gpus) {
    if (g.vendor_id == kVendorAmd && !g.gfx.empty() && std::find(gfxs.begin(), gfxs.end(), g.gfx) == gfxs.end()) gfxs.push_back(g.gfx);
  }
  return gfxs;
}

}  // namespace

void probe_hip_installs(const SystemView& view, const platform::Environment& env, const RegisteredEnvironment& registered, Profile& profile,
                        bool with_kernels) {
  std::set<std::string> seen;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen_folders;
  const bool windows = targets_windows(profile);
  for (const auto& candidate : candidates(view, env, registered, windows)) {
    if (!view.is_directory(candidate.root)) continue;
    if (candidate.found_via == "system" && !system_hip_present(view, candidate.root)) continue;
    std::string key = generic_path_to_utf8(view.canonical(candidate.root).lexically_normal());
    while (key.size() > 1 && key.back() == '/') key.pop_back();
    if (!seen.insert(key).second) continue;
    if (auto id = view.identity(candidate.root); id && !seen_folders.insert({id->volume, id->index}).second) continue;

    HipInstall install;
    install.root = path_text(profile, candidate.root);
    install.found_via = candidate.found_via;
    for (const auto& spec : library_specs(windows)) {
      HipLibrary library{spec.component, false, {}};
      std::vector<fs::path> dirs = library_dirs(candidate.root, windows);
      if (std::string(spec.component) == "hipinfo") dirs = {candidate.root / "bin"};
      // Exact names are looked up, not listed for: hipinfo's folder is /usr/bin on a distribution.
      const bool exact = std::none_of(spec.names.begin(), spec.names.end(), [](std::string_view p) { return p.ends_with('*'); });
      for (const auto& dir : dirs) {
        std::optional<std::string> file;
        if (exact) {
          for (std::string_view name : spec.names) {
            if ((!file || name < *file) && view.exists(dir / path_from_utf8(name))) file = std::string(name);
          }
        } else {
          file = view.first_name(dir, [&](const std::string& n) {
            return std::any_of(spec.names.begin(), spec.names.end(), [&](std::string_view p) { return name_matches(n, p); });
          });
        }
        if (file) {
          library.found = true;
          library.path = path_text(profile, dir / path_from_utf8(*file));
          break;
        }
      }
      install.libraries.push_back(std::move(library));
    }
    auto has = [&](const char* component) {
      return std::any_of(install.libraries.begin(), install.libraries.end(), [&](auto& l) { return l.component == component && l.found; });
    };
    // The system prefix counts only when it actually holds a HIP runtime (distribution packages).
    if (candidate.found_via == "system" && !has("hip-runtime")) continue;
    if (!has("hip-runtime") && !has("rocblas") && !view.exists(candidate.root / ".info/version")) {
      profile.probe_notes.push_back(fmt::format("{} ({}) holds no HIP runtime or rocBLAS; ignored", install.root, candidate.found_via));
      continue;
    }
    install.version = read_version(view, candidate.root, candidate.found_via, windows, install.version_source);
    if (!windows) {
      for (const auto& zluda : kZludaNames) {
        const auto dirs = library_dirs(candidate.root, false);
        const bool present = std::any_of(dirs.begin(), dirs.end(), [&](const fs::path& dir) { return view.exists(dir / zluda.name); });
        // A library missing altogether has its own finding (rocblas-missing, ...).
        const bool component_found = has(zluda.component) || std::string(zluda.component) == "rocm-smi";
        if (!present && component_found) install.missing_zluda_names.push_back(zluda.name);
      }
    }

    if (with_kernels) read_kernel_support(view, candidate.root, windows, amd_gfxs(profile), install);
    profile.hip_installs.push_back(std::move(install));
  }
}

void add_kernel_support(Profile& profile) {
  const SystemView view(profile.root == "/" ? std::nullopt : std::optional(path_from_utf8(profile.root)));
  const auto gfxs = amd_gfxs(profile);
  for (auto& install : profile.hip_installs) {
    if (!install.kernels_read) read_kernel_support(view, path_from_utf8(install.root), targets_windows(profile), gfxs, install);
  }
}

}  // namespace zcuda::detect
