#pragma once
// What a matched profile asks of a launch, in the generic terms launch, stage and warmup take:
// a folder and a name map to place into, variables with their reasons, the launch mode, the
// application's own runtime, where its kernels are. Nothing else in zcuda asks which
// application it is.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/apps/recognise.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/stage/plan.hpp>

namespace zcuda::apps {

// Machine facts a profile's settings depend on.
struct MachineFacts {
  bool hipblaslt_kernels = false;  // the HIP SDK has hipBLASLt kernels (launch sets HIPBLASLT_TENSILE_LIBPATH)
  // Where the application starts: its environment and working folder (empty: zcuda's own), for a
  // profile whose application finds its ZLUDA through them (Profile::runtime_variable).
  std::optional<platform::Environment> environment;
  std::filesystem::path working_dir;
};

struct Setup {
  std::string profile;
  std::optional<std::filesystem::path> place_into;   // the folder ZLUDA's libraries go into
  std::vector<stage::NameMapping> names;             // empty: the runtime's own names
  bool stage = true;                                 // false: nothing is placed anywhere
  bool direct = false;                               // launched without ZLUDA's launcher
  std::optional<std::filesystem::path> app_runtime;  // the application's own ZLUDA folder, when it has one
  std::optional<std::string> app_runtime_missing;    // where the application would look for it, when it is not there
  std::vector<launch::Setting> settings;
  std::vector<std::string> skipped;            // variables not set, and why ("DISABLE_ADDMM_CUDA_LT: hipBLASLt has kernels")
  std::vector<std::filesystem::path> kernels;  // folders whose binaries warmup compiles
  std::optional<std::string> flavour_problem;  // torch that cannot work with the profile's family
  // A torch built for ROCm (native_rocm.hpp): launched natively, nothing placed, the profile's
  // ZLUDA variables not set; the sentence says why.
  std::optional<std::string> native_rocm;
  std::vector<std::string> notes;
};

Setup setup_for(const Match& match, platform::Os os, const MachineFacts& facts);

// Steam's launch option line for `runtime_dir`, when the profile has one.
std::optional<std::string> steam_launch_option(const Profile& profile, const std::filesystem::path& runtime_dir);

// The entries of a PATH value that the application removes in-process (Profile::drops_path):
// folders zcuda puts on PATH that the application will not search. Empty when it drops none.
std::vector<std::string> dropped_path_entries(const Profile& profile, std::string_view path, platform::Os os);

nlohmann::json to_json(const Setup& setup);

}  // namespace zcuda::apps
