#pragma once
// Application profiles: what each kind of application people run through ZLUDA needs (where
// ZLUDA's libraries go and under which names, the environment, how to launch it, where its
// kernels are, the check that proves it works), as data: manifests/app-profiles.json, embedded,
// plus a user's own file (docs/apps.md documents the format).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/stage/plan.hpp>

namespace zcuda::apps {

inline constexpr int kFormatVersion = 1;

// One fact that recognises an application; every field given must hold.
struct Marker {
  std::vector<std::string> exists;     // any of these relative paths exists in the application's folder
  std::vector<std::string> program;    // the program's file name is one of these
  std::optional<std::string> machine;  // the program is a PE of this machine ("i386")
  bool python_torch = false;           // the program is a Python interpreter whose packages hold torch
  std::string why;
};

// Where ZLUDA's libraries go: nowhere, the folder torch loads its CUDA libraries from, or the
// program's folder (stage as `zcuda stage` does).
enum class Into { none, torch_lib, program };
std::string_view to_string(Into into);

struct Placement {
  Into into = Into::none;
  std::vector<stage::NameMapping> names;  // empty: the runtime's own names, as stage plans them
};

// A variable the profile sets, and why; `unless` names a machine fact that makes it unneeded.
enum class Unless { nothing, hipblaslt_kernels };
std::string_view to_string(Unless unless);

struct Setting {
  std::string name;
  std::string value;
  std::string why;
  Unless unless = Unless::nothing;
};

// How the program starts: through ZLUDA's launcher (zluda.exe on Windows, the library path on
// Linux) or by itself, loading ZLUDA on its own.
enum class LaunchMode { launcher, direct };
std::string_view to_string(LaunchMode mode);

// What proves the application works: the torch check, the fatbin's targets, PhysX installed.
enum class Check { torch, fatbin, physx, none };
std::string_view to_string(Check check);

// Where the application's kernels are, for warmup and run's first-run notice.
struct Warmup {
  enum class Kind { none, program, torch_lib, glob } kind = Kind::program;
  std::vector<std::string> globs;  // Kind::glob: folders under the application's, '*' matching one name
};

// PATH entries the application itself removes from its own environment before it loads CUDA
// libraries (ComfyUI-Zluda's comfy/zluda.py drops those containing "rocm").
struct PathDrop {
  std::string containing;  // compared without regard to case
  std::string why;
};

// The scaled-dot-product-attention backends (flash, mem_efficient, math, cudnn) turned off for
// the application: by the application itself (the torch check mirrors it), or by zcuda's
// attention hook (manifests/sdp-hook.py as sitecustomize.py on PYTHONPATH).
struct Attention {
  std::vector<std::string> off;
  bool by_hook = false;
  std::string why;
};

// A note that holds for one way of starting the program only: through ZLUDA's zluda.exe, or
// without it (--direct, or Linux), optionally on one OS.
struct LaunchNote {
  bool zluda_exe = true;
  std::optional<platform::Os> os;
  std::string note;
};

struct Profile {
  std::string name;
  std::string title;
  family::Family family = family::Family::upstream;
  std::vector<platform::Os> os;  // empty: every OS
  std::vector<Marker> recognise;
  std::optional<std::string> runtime;  // the application's own ZLUDA folder, relative to it (".\zluda", ".zluda")
  // Where the application itself looks for that folder, when not relative to its own: a variable
  // that names it, and paths relative to the working folder (SD.Next's zluda_installer.py:
  // os.path.abspath(os.environ.get('ZLUDA', '.zluda'))).
  std::optional<std::string> runtime_variable;
  bool runtime_from_working_dir = false;
  std::map<platform::Os, Placement> placement;
  std::vector<Setting> environment;
  std::optional<PathDrop> drops_path;
  std::optional<Attention> attention;
  bool family_default_cc = false;  // ZLUDA_CC left to the runtime family's own default
  // The compute capability ZLUDA should report ("8.5"), set as ZLUDA_CC unless the user set
  // ZLUDA_CC or ZLUDA_SM; `compute_capability_why` says why.
  std::optional<std::string> compute_capability;
  std::string compute_capability_why;
  LaunchMode launch = LaunchMode::launcher;
  bool stage = true;
  Warmup warmup;
  Check check = Check::none;
  // The application's own ZLUDA loader the torch check runs before importing torch ("sdnext":
  // modules/zluda_installer.py load(), as SD.Next's installer.py calls it).
  std::optional<std::string> check_loader;
  std::optional<std::string> steam_launch_option;  // "{runtime}" stands for ZLUDA's folder
  std::vector<std::string> notes;
  std::vector<LaunchNote> launch_notes;
  std::string origin;  // "embedded" or the user's file

  bool runs_on(platform::Os os) const;
  Placement placement_on(platform::Os os) const;
};

// Parses and validates a profiles file. Errors (ErrorKind::invalid_input) name the JSON path:
// "profiles[2].launch: expected one of launcher, direct, got \"zluda\"".
Result<std::vector<Profile>> parse(std::string_view json_text, std::string_view origin);

// The user's own profiles file in zcuda's home: read before the embedded ones, and a profile of
// the same name replaces the embedded one.
std::filesystem::path user_file(const std::filesystem::path& home_root);

// The embedded profiles, with the user's file (when it exists) first.
Result<std::vector<Profile>> load(const std::optional<std::filesystem::path>& user_profiles);

const Profile* find(const std::vector<Profile>& profiles, std::string_view name);

nlohmann::json to_json(const Profile& profile);

}  // namespace zcuda::apps
