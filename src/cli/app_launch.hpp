#pragma once
// The application profile of a launch (run, bench, verify --app): recognised from APP, or named
// with --profile, and what it changes in the launch's options.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/apps/profile.hpp>
#include <zcuda/apps/recognise.hpp>
#include <zcuda/apps/setup.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/stage/for_launch.hpp>
#include <zcuda/stage/stage.hpp>

#include "command.hpp"

namespace zcuda::cli {

// The embedded profiles with the user's own file (home/app-profiles.json) first.
Result<std::vector<apps::Profile>> load_profiles(const Context& context);

// What the profiles' settings depend on, from detection.
apps::MachineFacts machine_facts(const detect::Profile& detected);

struct AppLaunch {
  apps::Match match;
  apps::Setup setup;
};

// The profile `options.program` matches, or the one --profile names; nullopt with --profile none
// or when nothing matches. An unknown --profile name is a usage error listing the names.
// `will_launch`: the command goes on to start the application (not run --print-env), so its
// interpreter may be asked where torch is; otherwise only files are read.
Result<std::optional<AppLaunch>> app_for_launch(const std::optional<std::string>& profile_flag, const launch::Options& options,
                                                const detect::Profile& detected, const Context& context, bool will_launch);

// The profile's variables (before --env), its launch mode, the folders it loads CUDA libraries
// from (torch/lib, for the mixed-family check), and its own ZLUDA folder when the
// user named no runtime.
void apply_app(const AppLaunch& app, launch::Options& options, bool runtime_given);

// Where and under which names the profile places ZLUDA's libraries (runtime_dir left empty);
// nullopt when it places nothing.
std::optional<stage::PlanOptions> placement_for_app(const AppLaunch& app, platform::Os os, const detect::Profile& detected);

// Places ZLUDA's libraries where the profile says (torch/lib, under its names), journaled like
// stage, and holds that folder's lock shared for the launch; nullopt when the profile places
// nothing there.
Result<std::optional<stage::HeldStage>> place_for_app(const AppLaunch& app, const std::filesystem::path& runtime_dir, platform::Os os,
                                                      const detect::Profile& detected);

// zcuda's attention hook, for a profile whose attention backends are turned off by it:
// manifests/sdp-hook.py written as sitecustomize.py into <state>/apps/attention-hook (or the
// temporary folder), that folder first on PYTHONPATH and ZCUDA_SDP_OFF naming the backends, each
// with its reason. Nothing for other profiles.
Status add_attention_hook(const AppLaunch& app, launch::Options& options, const Context& context);

// For the torch check: the backends an application turns off itself (ZCUDA_CHECK_SDP_OFF), which
// the check turns off too, so that it computes as the application does.
void mirror_app_attention(const AppLaunch& app, launch::Options& options);

// For the torch check of a profile with a loader (SD.Next): the check runs the application's own
// loader from its folder first (ZCUDA_CHECK_LOADER, ZCUDA_CHECK_APP_ROOT), with ZLUDA naming the
// folder the application would find, so the loader finds it from any working folder.
void mirror_app_loader(const AppLaunch& app, launch::Options& options);

// What to tell the user before the launch: the profile and why, a torch that cannot work, notes.
std::vector<std::string> app_notices(const AppLaunch& app);

// What the launch really sets besides the profile's own variables (zcuda's for ZLUDA and HIP),
// and the PATH entries the application removes in-process (Profile::drops_path).
std::vector<std::string> app_launch_notes(const AppLaunch& app, const launch::LaunchPlan& plan, platform::Os os);

}  // namespace zcuda::cli
