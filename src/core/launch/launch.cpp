// The environment of `zcuda run` (docs/staging.md, "Environment set by run").
#include <zcuda/launch/launch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/launch/launcher.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/launch/server32.hpp>
#include <zcuda/launch/trace.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/windows_system.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;
using platform::Os;

namespace {

std::optional<std::string> lookup(const platform::Environment& env, const std::string& name, Os os) {
  if (auto key = platform::variable_key(env, name, os)) return env.at(*key);
  return std::nullopt;
}

// The key under which the environment holds `name` (Windows keeps "Path" as it is spelt).
std::string key_of(const platform::Environment& env, const std::string& name, Os os) { return platform::variable_key(env, name, os).value_or(name); }

char list_separator(Os os) { return os == Os::windows ? ';' : ':'; }

// Folders first on a PATH-like list, existing ones only, without repeating themselves.
std::string prepend(const std::vector<fs::path>& first, const std::optional<std::string>& rest, Os os) {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& p : first) {
    const std::string s = path_to_utf8(p);
    if (!platform::is_dir(p) || std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
    seen.push_back(s);
    if (!out.empty()) out += list_separator(os);
    out += s;
  }
  if (rest && !rest->empty()) {
    if (!out.empty()) out += list_separator(os);
    out += *rest;
  }
  return out;
}

std::optional<fs::path> find_hip(const Options& options, const platform::Environment& env) {
  if (options.hip_path) {
    // Written into variables the program reads from its own working folder: never relative
    // (a path of this machine; another OS's is taken as written).
    if (options.os != platform::current_os()) return options.hip_path;
    std::error_code ec;
    fs::path absolute = fs::absolute(*options.hip_path, ec);
    return ec ? *options.hip_path : absolute.lexically_normal();
  }
  if (auto hip = lookup(env, "HIP_PATH", options.os); hip && !hip->empty()) return path_from_utf8(*hip);
  if (options.os == Os::linux) {
    if (auto rocm = lookup(env, "ROCM_PATH", options.os); rocm && !rocm->empty()) return path_from_utf8(*rocm);
    if (platform::is_dir("/opt/rocm")) return fs::path("/opt/rocm");
  }
  return std::nullopt;
}

// rocBLAS and hipBLASLt read their kernels from these folders; a per-gfx subfolder, when the
// SDK has one, holds only that GPU's kernels.
std::optional<fs::path> kernel_folder(const fs::path& base, const std::optional<std::string>& gfx) {
  if (!platform::is_dir(base)) return std::nullopt;
  if (gfx && !gfx->empty() && platform::is_dir(base / *gfx)) return base / *gfx;
  return base;
}

// Sets one variable of the plan's environment and records the change; a later setting of the
// same variable replaces the earlier record.
void set_variable(LaunchPlan& plan, Os os, const std::string& name, std::string value, std::string why) {
  const std::string key = key_of(plan.environment, name, os);
  auto before = lookup(plan.environment, name, os);
  plan.environment[key] = value;
  std::erase_if(plan.changes, [&](const EnvChange& c) { return c.name == key; });
  plan.changes.push_back(EnvChange{key, before, std::move(value), std::move(why)});
}

// Takes a variable out of the plan's environment, recording it, when it is there.
void remove_variable(LaunchPlan& plan, Os os, const std::string& name, std::string why) {
  const auto key = platform::variable_key(plan.environment, name, os);
  if (!key) return;
  const std::string before = plan.environment.at(*key);
  plan.environment.erase(*key);
  std::erase_if(plan.changes, [&](const EnvChange& c) { return c.name == *key; });
  plan.changes.push_back(EnvChange{*key, before, "", std::move(why), true});
}

// Windows: what the program's PE header and manifest say about how it can be started. A 32-bit
// program needs ZLUDA's 32-bit launcher and DLLs (the "32" folder of recent builds): a 64-bit
// DLL injected into it fails with "initialization routine failed". A program whose manifest
// requires administrator rights cannot be started from a terminal that is not elevated (error
// 740). Files that are not PE, or that do not parse, are left to Windows to judge.
Status check_windows_program(const Options& options, LaunchPlan& plan) {
  auto read = binfmt::read_imports(plan.target);
  if (!read || !*read || (*read)->format != binfmt::Format::pe) return {};
  const binfmt::Imports& pe = **read;
  if (binfmt::is_x86_32_pe(pe)) {
    plan.is_32bit = true;
    const fs::path folder = options.runtime.dir / "32";
    std::error_code ec;
    if (!fs::exists(folder / "nvcuda.dll", ec) && !fs::exists(folder / "zluda.exe", ec)) {
      return fail(ErrorKind::unsupported,
                  fmt::format("{} is a 32-bit program, and this ZLUDA ({}) has no 32-bit libraries (no 32\\zluda.exe or "
                              "32\\nvcuda.dll)",
                              plan.target, options.runtime.dir),
                  "ZLUDA's 64-bit DLLs cannot load into a 32-bit program (Windows would say \"initialization routine failed\"). "
                  "Use a ZLUDA build that ships a 32 folder (zcuda install --channel latest; the stable v6 has none), or the "
                  "program's 64-bit version.");
    }
    plan.runtime_dir = folder;
  }
  if (pe.manifest && pe.manifest->find("requireAdministrator") != std::string::npos &&
      !options.elevated.value_or(platform::windows::process_is_elevated())) {
    return fail(ErrorKind::environment,
                fmt::format("{} asks for administrator rights (its manifest says requireAdministrator), and zcuda is not "
                            "running as administrator",
                            plan.target),
                "Windows will not start it from here (error 740). Open the terminal as administrator (right-click, Run as "
                "administrator) and run zcuda again.");
  }
  return {};
}

// The variable the user set that fixes the compute capability, as the program will see it (--env
// applies last): ZLUDA_CC if it is set at all (an empty one too: upstream then falls back to its
// default and never reads ZLUDA_SM), else ZLUDA_SM, the order upstream reads them in
// (zluda_common/src/constants.rs); checked whatever the family, so that neither is ever overridden.
platform::Environment as_the_program_sees(const Options& options, const platform::Environment& base) {
  platform::Environment seen = base;
  for (const auto& [name, value] : options.overrides) seen[key_of(seen, name, options.os)] = value;
  return seen;
}
std::optional<family::CcSetting> user_cc_setting(const Options& options, const platform::Environment& seen) {
  return family::cc_setting_read({"ZLUDA_CC", "ZLUDA_SM"}, [&](const std::string& name) { return lookup(seen, name, options.os); });
}

// Which compute capability the program sees: the user's own ZLUDA_CC/ZLUDA_SM (never
// overridden), else --zluda-cc, else the default of the family and release
// (manifests/runtime-families.json), for which zcuda sets nothing. lshqqytiger's ZLUDA, and
// upstream's before v6-preview.63, read neither variable.
Result<ComputeCapability> choose_compute_capability(const Options& options, const platform::Environment& base, const family::Identity& runtime) {
  const auto facts = family::facts(runtime.family);
  const std::vector<std::string> read = facts ? family::cc_variables_read(*facts, runtime.release) : std::vector<std::string>{"ZLUDA_CC", "ZLUDA_SM"};
  const bool reads_variables = !read.empty();
  const std::string family_name(family::to_string(runtime.family));
  // Who ignores the variables: a family that never reads them, or an upstream release before they came.
  const std::string reader =
      facts && !facts->cc_variables.empty() && runtime.release
          ? fmt::format("{} ZLUDA release {} (they are read since {})", family_name, *runtime.release, facts->cc_variables_since)
          : fmt::format("{} ZLUDA", family_name);
  // Upstream's default changed at v7-preview.8 (8.8 before, 8.5 after): the release decides where known.
  const std::string default_cc = facts ? family::default_cc(*facts, runtime.release) : std::string();
  ComputeCapability cc;
  const platform::Environment seen = as_the_program_sees(options, base);
  if (auto user = user_cc_setting(options, seen)) {
    const auto& [name, value, parsed] = *user;
    if (options.zluda_cc && !(name == "ZLUDA_CC" && value == *options.zluda_cc)) {
      return fail(ErrorKind::usage,
                  fmt::format("--zluda-cc {} conflicts with your {}={}{}", *options.zluda_cc, name, value, value.empty() ? " (set, empty)" : ""),
                  fmt::format("zcuda never overrides your own {}: unset it, or leave out --zluda-cc.", name));
    }
    cc.source = "user";
    if (!reads_variables) {
      cc.value = default_cc;
      cc.why = fmt::format("your {}={} is not read by {}, which always reports {}", name, value, reader, default_cc);
    } else if (!parsed) {
      cc.value = facts ? std::optional<std::string>(default_cc) : std::nullopt;
      cc.why = fmt::format("your {}=\"{}\" is not a compute capability: ZLUDA reads it, falls back to its default{}", name, value,
                           name == "ZLUDA_CC" && lookup(seen, "ZLUDA_SM", options.os) ? " and does not read your ZLUDA_SM" : "");
    } else {
      cc.value = fmt::format("{}.{}", parsed->first, parsed->second);
      cc.why = fmt::format("your {}={}{}", name, value, facts ? "" : " (if this ZLUDA reads it: its family is unknown)");
    }
    return cc;
  }
  if (options.zluda_cc) {
    cc.source = "--zluda-cc";
    cc.value = reads_variables ? *options.zluda_cc : default_cc;
    cc.why = reads_variables ? options.zluda_cc_from.value_or("--zluda-cc") + " sets ZLUDA_CC"
                             : fmt::format("{} sets ZLUDA_CC, which {} does not read: it always reports {}",
                                           options.zluda_cc_from.value_or("--zluda-cc"), reader, default_cc);
    return cc;
  }
  if (facts) {
    cc.source = "family default";
    cc.value = default_cc;
    cc.why =
        fmt::format("{} ZLUDA's own default{} (zcuda sets no ZLUDA_CC{})", family_name,
                    runtime.release ? fmt::format(" in release {}", *runtime.release) : std::string(),
                    reads_variables ? "; --zluda-cc sets one" : fmt::format("; this release reads none, they came in {}", facts->cc_variables_since));
    if (facts->cc_variables.empty()) cc.why = fmt::format("{} ZLUDA's own default (it reads no variable that changes it)", family_name);
    return cc;
  }
  cc.source = "unknown";
  cc.why = "the runtime's family is unknown, and so is its default (zcuda sets no ZLUDA_CC; --zluda-cc sets one)";
  return cc;
}

// --trace needs zluda_trace's libraries, and on Windows zluda.exe to inject them: refused before
// anything starts when either is missing.
Status check_trace(const Options& options, const fs::path& runtime, const fs::path& trace_libraries) {
  if (options.os == Os::windows && options.direct) {
    return fail(ErrorKind::usage, "--trace goes through zluda.exe (zluda.exe --zluda-trace), and --direct launches without it",
                "Leave out --direct to trace, or --trace to launch the program itself.");
  }
  if (!platform::is_dir(trace_libraries)) {
    return fail(ErrorKind::not_found,
                fmt::format("this ZLUDA ({}) has no trace folder ({}), which holds ZLUDA's trace libraries (zluda_trace)", runtime, trace_libraries),
                "--trace needs a ZLUDA build that ships its trace folder (vosen/ZLUDA's release archives do); point --runtime-dir "
                "at one, or run without --trace.");
  }
  std::error_code ec;
  if (options.os == Os::windows && !fs::exists(runtime / "zluda.exe", ec)) {
    return fail(ErrorKind::not_found, fmt::format("this ZLUDA ({}) has no zluda.exe, which --trace launches through", runtime),
                "Use a complete ZLUDA build (with zluda.exe and its trace folder), or run without --trace.");
  }
  if (options.os != Os::windows && options.trace_log_dir.empty()) {
    return fail(ErrorKind::internal, "--trace was asked for without a folder for the traces");
  }
  return {};
}

// A 32-bit program: ZLUDA's 32-bit nvcuda.dll starts zluda64_server.exe from the folder above
// its own, else from ZLUDA64_PATH (server32.hpp). Through 32\zluda.exe the injected DLL finds
// the runtime's server beside the 32 folder; a DLL staged into the program's folder (or found
// there with --direct) looks above that folder instead, so ZLUDA64_PATH names the runtime's.
Status prepare_server32(const Options& options, LaunchPlan& plan) {
  const fs::path runtime64 = options.runtime.dir;
  const fs::path dll = plan.runtime_dir / "nvcuda.dll";
  std::error_code ec;
  if (fs::is_regular_file(dll, ec)) {
    std::vector<fs::path> dll_folders = {plan.runtime_dir};
    if (options.direct || !fs::exists(plan.runtime_dir / "zluda.exe", ec)) dll_folders.push_back(plan.target.parent_path());
    if (auto checked = check_server32(dll, dll_folders, runtime64); !checked) return checked;
  }
  set_variable(plan, options.os, "ZLUDA64_PATH", path_to_utf8(runtime64),
               "a 32-bit program: ZLUDA's 32-bit nvcuda.dll starts zluda64_server.exe from here when there is none in the folder "
               "above its own (a DLL staged next to the program, or started with --direct)");
  return {};
}

// ZLUDA's own library behind each trace shim: the shims forward to the file their variable
// names, or else to NVIDIA's default path (zluda_trace_*/src/lib.rs, get_library). The real files
// of ZLUDA's Linux archive are lib<crate's lib name>.so (xtask), with the CUDA names as links.
struct TraceTarget {
  const char* variable;
  std::vector<const char*> files;  // in the runtime folder, first found wins
};

const std::vector<TraceTarget>& linux_trace_targets() {
  static const std::vector<TraceTarget> targets = {
      {"ZLUDA_CUDA_LIB", {"libcuda.so", "libnvcuda.so", "libcuda.so.1"}},
      {"ZLUDA_BLAS_LIB", {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}},
      {"ZLUDA_BLASLT_LIB", {"libcublaslt.so", "libcublasLt.so"}},
      {"ZLUDA_SPARSE_LIB", {"libcusparse.so", "libcusparse.so.12", "libcusparse.so.11"}},
      {"ZLUDA_FFT_LIB", {"libcufft.so", "libcufft.so.12", "libcufft.so.11"}},
      {"ZLUDA_DNN8_LIB", {"libcudnn64_8.so", "libcudnn.so.8"}},
      {"ZLUDA_DNN9_LIB", {"libcudnn64_9.so", "libcudnn.so.9"}},
      {"ZLUDA_NVML_LIB", {"libnvml.so", "libnvidia-ml.so.1", "libnvidia-ml.so"}},
  };
  return targets;
}

// --trace: each shim's variable names ZLUDA's own library in the runtime folder. On Windows
// zluda.exe --zluda-trace sets the others itself, but names NVML's ZLUDA_ML_LIB while the NVML
// shim reads ZLUDA_NVML_LIB (zluda_windows/src/lib.rs, zluda_trace_nvml/src/lib.rs).
void set_trace_targets(const Options& options, LaunchPlan& plan, const fs::path& runtime) {
  std::error_code ec;
  if (options.os == Os::windows) {
    if (fs::is_regular_file(runtime / "nvml.dll", ec)) {
      set_variable(plan, options.os, "ZLUDA_NVML_LIB", path_to_utf8(runtime / "nvml.dll"),
                   "--trace: the NVML trace shim forwards to ZLUDA's nvml.dll (zluda.exe sets ZLUDA_ML_LIB, which the shim does not read)");
    }
    return;
  }
  for (const auto& target : linux_trace_targets()) {
    auto file = std::find_if(target.files.begin(), target.files.end(), [&](const char* name) { return fs::exists(runtime / name, ec); });
    if (file == target.files.end()) continue;
    set_variable(plan, options.os, target.variable, path_to_utf8(runtime / *file),
                 "--trace: the trace shim forwards each call to ZLUDA's own library (without it, to NVIDIA's default path)");
  }
}

// Where zluda_trace writes: a ZLUDA_LOG_DIR the user set is kept (the traces go where they
// asked); otherwise, on Linux, a folder of this run's own.
void set_trace_log_dir(const Options& options, LaunchPlan& plan, const platform::Environment& base) {
  if (auto own = lookup(base, "ZLUDA_LOG_DIR", options.os); own && !own->empty()) return;
  if (options.os == Os::windows) return;  // zluda.exe --zluda-trace sets %TEMP%\zluda itself
  set_variable(plan, options.os, "ZLUDA_LOG_DIR", path_to_utf8(options.trace_log_dir),
               "--trace: where zluda_trace writes its logs (a folder of this run's own; zcuda run says where after the program ends)");
}

// Where the run's traces will be: the ZLUDA_LOG_DIR the program sees (--env included), else on
// Windows the one zluda.exe --zluda-trace gives it. zluda.exe appends its ZLUDA_LOG_DIR after the
// inherited variables without replacing one the user set (zluda_inject/src/bin.rs,
// get_env_variables_block), and Windows answers the first of two equal names. In a shared folder
// (the user's own, or Windows' %TEMP%\zluda) only the program's own folders are this run's.
void note_trace_folder(const Options& options, LaunchPlan& plan) {
  const Os os = options.os;
  auto own = lookup(plan.environment, "ZLUDA_LOG_DIR", os);
  if (own && !own->empty()) {
    plan.trace_dir = zcuda::path_from_utf8(*own);
  } else if (os == Os::windows) {
    plan.trace_dir = windows_trace_log_dir(plan.environment);
  }
  const bool own_folder = os != Os::windows && plan.trace_dir == options.trace_log_dir;
  if (plan.trace_dir && !own_folder) plan.trace_program = zcuda::path_to_utf8(plan.target.filename());
}

// Linux: how the program finds ZLUDA. ZLUDA's recommended method is LD_LIBRARY_PATH, and
// LD_AUDIT with its zluda_ld the alternative (docs/src/quick_start.md); --ld-audit picks the
// latter. ZLUDA's libraries ask for ROCm's unversioned names (libamdhip64.so, librocblas.so,
// ...; xtask strips the versions), which ROCm keeps in its lib folder, off the loader's default
// path: that folder goes on LD_LIBRARY_PATH either way.
Status set_linux_loading(const Options& options, LaunchPlan& plan, const platform::Environment& base, const fs::path& runtime,
                         const fs::path& trace_libraries, const std::optional<fs::path>& hip) {
  const Os os = options.os;
  std::vector<fs::path> libraries;
  if (!options.ld_audit) {
    if (options.trace) libraries.push_back(trace_libraries);
    libraries.push_back(runtime);
  }
  if (hip) libraries.push_back(*hip / "lib");
  if (options.libtorch) libraries.push_back(*options.libtorch / "lib");
  std::string why = options.ld_audit
                        ? "--ld-audit: zluda_ld (LD_AUDIT) redirects the CUDA libraries, so the runtime stays off this list; "
                        : (options.trace ? "--trace: the dynamic loader finds ZLUDA's trace libraries first (they log each CUDA call), then ZLUDA's "
                                           "libcuda.so.1, before any other (ZLUDA's recommended method; --ld-audit uses LD_AUDIT instead); "
                                         : "the dynamic loader finds ZLUDA's libcuda.so.1 before any other (ZLUDA's recommended method; "
                                           "--ld-audit uses LD_AUDIT instead); ");
  if (hip && platform::is_dir(*hip / "lib")) why += "ROCm's lib folder, where ZLUDA finds libamdhip64.so and the other unversioned names it links; ";
  if (options.libtorch) why += "LibTorch's libraries; ";
  why.resize(why.size() - 2);  // the last "; "
  const std::string value = prepend(libraries, lookup(base, "LD_LIBRARY_PATH", os), os);
  if (!value.empty()) set_variable(plan, os, "LD_LIBRARY_PATH", value, why);
  if (!options.ld_audit) return {};
  std::error_code ec;
  // The trace folder's zluda_ld redirects to the trace libraries; the runtime's to ZLUDA's own.
  const fs::path audit = options.trace ? trace_libraries / "zluda_ld" : runtime / "zluda_ld";
  if (!fs::exists(audit, ec)) {
    return fail(ErrorKind::not_found, fmt::format("--ld-audit needs ZLUDA's zluda_ld, and {} has none", audit.parent_path()),
                "Use a ZLUDA build that ships zluda_ld (vosen/ZLUDA's Linux archives do), or leave out --ld-audit.");
  }
  auto before = lookup(base, "LD_AUDIT", os);
  set_variable(plan, os, "LD_AUDIT", path_to_utf8(audit) + (before && !before->empty() ? ":" + *before : ""),
               "--ld-audit: ZLUDA's zluda_ld redirects every CUDA library the program loads, by name or by full path, to ZLUDA's "
               "(ZLUDA's alternative method)");
  return {};
}

}  // namespace

Result<std::pair<std::string, std::string>> parse_assignment(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return fail(ErrorKind::usage, fmt::format("--env needs NAME=VALUE, not '{}'", text), "For example: --env ZLUDA_CC=8.9");
  }
  return std::pair<std::string, std::string>(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

Result<fs::path> resolve_program(const fs::path& program, const platform::Environment& env, Os os) {
  std::error_code ec;
  const std::string text = path_to_utf8(program);
  const bool has_separator = text.find('/') != std::string::npos || (os == Os::windows && text.find('\\') != std::string::npos);
  auto usable = [&](const fs::path& p) { return fs::is_regular_file(p, ec); };
  // Absolute, with the platform's own separators ("C:/Games/app.exe" is shown as C:\Games\app.exe).
  auto native = [](const fs::path& p) { return fs::absolute(p).make_preferred(); };
  if (has_separator || program.is_absolute()) {
    if (usable(program)) return native(program);
    if (os == Os::windows && usable(path_from_utf8(text + ".exe"))) return native(path_from_utf8(text + ".exe"));
    return fail(ErrorKind::not_found, fmt::format("{} does not exist", program), "Check the program's path.");
  }
  // Windows also finds a program in the current folder.
  std::vector<fs::path> dirs;
  if (os == Os::windows) dirs.push_back(fs::current_path(ec));
  if (auto path = lookup(env, "PATH", os)) {
    std::size_t start = 0;
    while (start <= path->size()) {
      auto end = path->find(list_separator(os), start);
      if (end == std::string::npos) end = path->size();
      if (end > start) dirs.push_back(path_from_utf8(path->substr(start, end - start)));
      start = end + 1;
    }
  }
  for (const auto& d : dirs) {
    if (usable(d / program)) return native(d / program);
    if (os == Os::windows && usable(d / path_from_utf8(text + ".exe"))) return native(d / path_from_utf8(text + ".exe"));
  }
  return fail(ErrorKind::not_found, fmt::format("{} was not found on PATH", program), "Give the program's path (for example ./" + text + ").");
}

Result<LaunchPlan> prepare_launch(const Options& options, const platform::Environment& base) {
  const Os os = options.os;
  auto target = resolve_program(options.program, base, os);
  if (!target) return std::unexpected(target.error());
  LaunchPlan plan;
  plan.target = *target;
  plan.library_folders = options.library_folders;
  plan.environment = base;
  auto set = [&](const std::string& name, std::string value, std::string why) { set_variable(plan, os, name, std::move(value), std::move(why)); };

  plan.runtime_dir = options.runtime.dir;
  if (os == Os::windows) {
    if (auto checked = check_windows_program(options, plan); !checked) return std::unexpected(checked.error());
    if (plan.is_32bit) {
      if (auto checked = prepare_server32(options, plan); !checked) return std::unexpected(checked.error());
    }
  }
  const fs::path runtime = plan.runtime_dir;
  // zluda_trace's libraries: the shims log each CUDA call and forward it to ZLUDA's own.
  const fs::path trace_libraries = runtime / "trace";
  if (options.trace) {
    if (auto checked = check_trace(options, runtime, trace_libraries); !checked) return std::unexpected(checked.error());
  }
  auto hip = find_hip(options, base);
  // Only ZLUDA's Windows build reads HIP_PATH (zluda_windows/src/lib.rs); Linux finds ROCm
  // through the library path (set_linux_loading).
  if (hip && os == Os::windows) set("HIP_PATH", path_to_utf8(*hip), "where ZLUDA looks for the HIP SDK's libraries (rocBLAS, hipBLASLt, MIOpen)");
  plan.runtime_family = runtime_family(options.runtime, os);
  auto cc = choose_compute_capability(options, base, plan.runtime_family);
  if (!cc) return std::unexpected(cc.error());
  plan.compute_capability = std::move(*cc);
  if (plan.compute_capability.source == "--zluda-cc") {
    set("ZLUDA_CC", *options.zluda_cc, options.zluda_cc_from.value_or("--zluda-cc") + ": the compute capability ZLUDA reports");
  }
  if (hip) {
    const fs::path lib = os == Os::windows ? *hip / "bin" : *hip / "lib";
    if (auto dir = kernel_folder(lib / "rocblas" / "library", options.gfx)) {
      set("ROCBLAS_TENSILE_LIBPATH", path_to_utf8(*dir), "rocBLAS kernels (rocBLAS aborts when it finds none for the GPU)");
    }
    if (auto dir = kernel_folder(lib / "hipblaslt" / "library", options.gfx)) {
      set("HIPBLASLT_TENSILE_LIBPATH", path_to_utf8(*dir), "hipBLASLt kernels");
    }
  }
  if (options.device) {
    set("HIP_VISIBLE_DEVICES", *options.device, "selects the GPU (an integrated GPU enumerated first would be picked)");
    // HIP numbers the devices ROCR_VISIBLE_DEVICES leaves visible: with both set, the index would
    // name another GPU, or none.
    remove_variable(plan, os, "ROCR_VISIBLE_DEVICES",
                    "HIP_VISIBLE_DEVICES counts only the GPUs ROCR_VISIBLE_DEVICES leaves visible, so the index would name "
                    "another GPU or none");
  }
  if (options.tf32_override && !lookup(base, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", os)) {
    set("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1",
        "PyTorch lets cuBLAS use TF32 for FP32 matrix products, as the community wrapper does (faster, about 3 decimal "
        "digits); --no-tf32-override leaves it unset");
  }

  if (os == Os::windows) {
    // Windows looks for a DLL in the program's folder, the system folders, then PATH, and so do
    // the programs it starts (which live elsewhere): the program's folder and ZLUDA's, HIP's and
    // LibTorch's DLLs must come first on PATH, ahead of an NVIDIA CUDA installation's.
    std::vector<fs::path> first = {plan.target.parent_path(), runtime};
    if (hip) first.push_back(*hip / "bin");
    if (options.libtorch) {
      first.push_back(*options.libtorch / "lib");
      first.push_back(*options.libtorch / "bin");
    }
    set("PATH", prepend(first, lookup(base, "PATH", os), os),
        "Windows finds DLLs on PATH (after the program's and the system's folders), and so do the programs "
        "it starts: the program's folder, the runtime, HIP's bin and LibTorch go ahead of other CUDA installations");
  } else {
    // Linux finds libraries through LD_LIBRARY_PATH; PATH only picks programs (a venv's python, a
    // toolchain), so it stays exactly as the user has it.
    if (auto loading = set_linux_loading(options, plan, base, runtime, trace_libraries, hip); !loading) return std::unexpected(loading.error());
  }
  if (options.trace) {
    set_trace_targets(options, plan, runtime);
    set_trace_log_dir(options, plan, base);
  }
  for (const auto& setting : options.settings) set(setting.name, setting.value, setting.why + "; --env " + setting.name + "=... overrides");
  for (const auto& [key, value] : options.overrides) set(key, value, "--env");

  std::error_code ec;
  const fs::path launcher = runtime / "zluda.exe";
  if (os == Os::windows && !options.direct && fs::exists(launcher, ec)) {
    // ZLUDA's recommended launch: zluda.exe injects its libraries into the program and children.
    plan.program = launcher;
    plan.through_launcher = true;
    std::vector<std::string> flags = options.launcher_flags;
    if (options.trace) {
      // zluda.exe then injects the trace folder's DLLs and sets ZLUDA_LOG_DIR=%TEMP%\zluda itself.
      if (std::find(flags.begin(), flags.end(), "--zluda-trace") == flags.end()) flags.insert(flags.begin(), "--zluda-trace");
    }
    if (options.launcher_join) {
      // Encoded so that the program receives exactly the user's arguments (launcher_encoding.hpp).
      auto command = launcher_command(*options.launcher_join, flags, path_to_utf8(plan.target), options.args);
      if (!command) return std::unexpected(command.error());
      plan.args = std::move(*command);
      plan.launcher_join = options.launcher_join;
    } else {
      plan.args = std::move(flags);
      plan.args.push_back("--");
      plan.args.push_back(path_to_utf8(plan.target));
      plan.args.insert(plan.args.end(), options.args.begin(), options.args.end());
    }
  } else {
    plan.program = plan.target;
    plan.args = options.args;
  }
  if (options.trace) note_trace_folder(options, plan);
  return plan;
}

Result<LaunchPlan> prepare_native_launch(const Options& options, const platform::Environment& base) {
  auto target = resolve_program(options.program, base, options.os);
  if (!target) return std::unexpected(target.error());
  LaunchPlan plan;
  plan.target = *target;
  plan.program = *target;
  plan.args = options.args;
  plan.environment = base;
  for (const auto& [name, value] : options.overrides) set_variable(plan, options.os, name, value, "--env");
  return plan;
}

std::vector<fs::path> program_library_folders(const LaunchPlan& plan) {
  std::vector<fs::path> folders{plan.target.parent_path()};
  for (const auto& folder : plan.library_folders) {
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
  }
  return folders;
}

Status check_families(const LaunchPlan& plan, Os os, platform::FolderListings* listings) {
  return family::check_not_mixed(plan.runtime_family, program_library_folders(plan), os, {}, listings);
}

nlohmann::json to_json(const ComputeCapability& cc) {
  return {{"value", cc.value ? nlohmann::json(*cc.value) : nlohmann::json(nullptr)}, {"source", cc.source}, {"why", cc.why}};
}

nlohmann::json to_json(const LaunchPlan& plan) {
  using nlohmann::json;
  json changes = json::array();
  for (const auto& c : plan.changes) {
    changes.push_back({{"name", c.name},
                       {"before", c.before ? json(*c.before) : json(nullptr)},
                       {"value", c.removed ? json(nullptr) : json(c.after)},
                       {"removed", c.removed},
                       {"why", c.why}});
  }
  json trace = nullptr;
  if (plan.trace_dir) {
    trace = {{"dir", path_to_utf8(*plan.trace_dir)}, {"program_folder", plan.trace_program ? json(*plan.trace_program) : json(nullptr)}};
  }
  return {{"program", path_to_utf8(plan.target)},
          {"executable", path_to_utf8(plan.program)},
          {"trace", std::move(trace)},
          {"through_launcher", plan.through_launcher},
          {"launcher_join", plan.launcher_join ? json(std::string(to_string(*plan.launcher_join))) : json(nullptr)},
          {"args", plan.args},
          {"environment", changes},
          {"compute_capability", to_json(plan.compute_capability)},
          {"runtime_family", family::to_json(plan.runtime_family)}};
}

}  // namespace zcuda::launch
