// A matched profile turned into what launch, stage and warmup take (docs/apps.md).
#include <zcuda/apps/setup.hpp>

#include <fmt/format.h>

#include <zcuda/apps/native_rocm.hpp>
#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;

namespace {

// Folders under `root` matching `glob` ('/'-separated; '*' stands for any one name).
std::vector<fs::path> glob_folders(const fs::path& root, const std::string& glob) {
  std::vector<fs::path> level = {root};
  std::size_t start = 0;
  while (start <= glob.size()) {
    auto end = glob.find('/', start);
    if (end == std::string::npos) end = glob.size();
    const std::string part = glob.substr(start, end - start);
    std::vector<fs::path> next;
    for (const auto& dir : level) {
      if (part != "*") {
        if (platform::is_dir(dir / path_from_utf8(part))) next.push_back(dir / path_from_utf8(part));
        continue;
      }
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), stop; !ec && it != stop; it.increment(ec)) {
        if (it->is_directory(ec)) next.push_back(it->path());
      }
    }
    std::sort(next.begin(), next.end());
    level = std::move(next);
    start = end + 1;
  }
  return level;
}

// The application's own ZLUDA folder where the application looks for it: beside it, or (SD.Next)
// `$ZLUDA`, else the profile's folder, relative to the working folder. A missing one is said.
void find_app_runtime(const Match& match, platform::Os os, const MachineFacts& facts, Setup& s) {
  const Profile& p = match.profile;
  if (!p.runtime) return;
  if (!p.runtime_variable && !p.runtime_from_working_dir) {
    if (platform::is_dir(match.root / path_from_utf8(*p.runtime))) s.app_runtime = match.root / path_from_utf8(*p.runtime);
    return;
  }
  std::error_code ec;
  const fs::path cwd = facts.working_dir.empty() ? fs::current_path(ec) : facts.working_dir;
  const platform::Environment env = facts.environment ? *facts.environment : platform::current_environment();
  std::optional<std::string> named;
  if (p.runtime_variable) {
    for (const auto& [key, value] : env) {
      if (os == platform::Os::windows ? ascii_iequals(key, *p.runtime_variable) : key == *p.runtime_variable) named = value;
    }
  }
  const fs::path base = p.runtime_from_working_dir ? cwd : match.root;
  const fs::path where = (base / path_from_utf8(named ? *named : *p.runtime)).lexically_normal();
  const std::string how =
      named ? fmt::format("${}={}", *p.runtime_variable, *named) : fmt::format("{} in the working folder {}", *p.runtime, path_to_utf8(base));
  if (platform::is_dir(where)) {
    s.app_runtime = where;
    return;
  }
  std::string missing = fmt::format("{} looks for its ZLUDA at {} ({}), and there is none", p.name, path_to_utf8(where), how);
  const fs::path beside = match.root / path_from_utf8(*p.runtime);
  if (!named && p.runtime_from_working_dir && platform::is_dir(beside) && beside != where) {
    missing += fmt::format("; the application's folder has one ({}): start it from {}", path_to_utf8(beside), path_to_utf8(match.root));
  }
  s.app_runtime_missing = std::move(missing);
}

// A ROCm torch needs no ZLUDA: nothing placed, no launcher, none of the profile's ZLUDA
// variables, no ZLUDA kernels to compile.
void make_native(Setup& s, std::string why) {
  s.native_rocm = std::move(why);
  s.stage = false;
  s.place_into.reset();
  s.names.clear();
  s.direct = true;
  s.app_runtime.reset();
  s.app_runtime_missing.reset();
  for (const auto& v : s.settings) s.skipped.push_back(fmt::format("{}: not set, since torch is a native ROCm build", v.name));
  s.settings.clear();
  s.kernels.clear();
}

}  // namespace

Setup setup_for(const Match& match, platform::Os os, const MachineFacts& facts) {
  const Profile& p = match.profile;
  Setup s;
  s.profile = p.name;
  s.stage = p.stage;
  s.direct = p.launch == LaunchMode::direct;
  s.notes = p.notes;
  find_app_runtime(match, os, facts, s);
  const Placement placement = p.placement_on(os);
  if (p.stage) {
    if (placement.into == Into::torch_lib && match.torch && platform::is_dir(match.torch->lib)) s.place_into = match.torch->lib;
    if (placement.into == Into::program) s.place_into = match.root;
    s.names = placement.names;
  }
  for (const auto& setting : p.environment) {
    if (setting.unless == Unless::hipblaslt_kernels && facts.hipblaslt_kernels) {
      s.skipped.push_back(fmt::format("{}: not set, since this HIP SDK has hipBLASLt kernels", setting.name));
      continue;
    }
    s.settings.push_back({setting.name, setting.value, fmt::format("profile {}: {}", p.name, setting.why)});
  }
  switch (p.warmup.kind) {
    case Warmup::Kind::none:
      break;
    case Warmup::Kind::program:
      s.kernels.push_back(match.root);
      break;
    case Warmup::Kind::torch_lib:
      if (match.torch && platform::is_dir(match.torch->lib)) s.kernels.push_back(match.torch->lib);
      break;
    case Warmup::Kind::glob:
      for (const auto& glob : p.warmup.globs) {
        for (auto& folder : glob_folders(match.root, glob)) s.kernels.push_back(std::move(folder));
      }
      break;
  }
  if (match.torch && p.check == Check::torch) {
    if (auto rocm = native_rocm(*match.torch)) {
      make_native(s, native_rocm_text(*match.torch, *rocm));
    } else {
      s.flavour_problem = flavour_problem(*match.torch, p.family);
    }
  }
  return s;
}

std::optional<std::string> steam_launch_option(const Profile& profile, const fs::path& runtime_dir) {
  if (!profile.steam_launch_option) return std::nullopt;
  std::string line = *profile.steam_launch_option;
  const std::string runtime = path_to_utf8(runtime_dir);
  for (auto at = line.find("{runtime}"); at != std::string::npos; at = line.find("{runtime}", at + runtime.size())) line.replace(at, 9, runtime);
  return line;
}

std::vector<std::string> dropped_path_entries(const Profile& profile, std::string_view path, platform::Os os) {
  std::vector<std::string> out;
  if (!profile.drops_path) return out;
  const char separator = os == platform::Os::windows ? ';' : ':';
  const std::string wanted = ascii_lower(profile.drops_path->containing);
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find(separator, start);
    if (end == std::string_view::npos) end = path.size();
    const std::string entry(path.substr(start, end - start));
    // As comfy/zluda.py: `"rocm" not in p.lower()`.
    if (!entry.empty() && ascii_lower(entry).find(wanted) != std::string::npos) out.push_back(entry);
    start = end + 1;
  }
  return out;
}

nlohmann::json to_json(const Setup& s) {
  using nlohmann::json;
  json names = json::array();
  for (const auto& n : s.names)
    names.push_back({{"from", n.from}, {"to", n.to}, {"keep_original_as", n.keep_original_as ? json(*n.keep_original_as) : json(nullptr)}});
  json settings = json::array();
  for (const auto& v : s.settings) settings.push_back({{"name", v.name}, {"value", v.value}, {"why", v.why}});
  json kernels = json::array();
  for (const auto& k : s.kernels) kernels.push_back(path_to_utf8(k));
  return {{"profile", s.profile},
          {"place_into", s.place_into ? json(path_to_utf8(*s.place_into)) : json(nullptr)},
          {"names", names},
          {"stage", s.stage},
          {"launch", s.direct ? "direct" : "launcher"},
          {"app_runtime", s.app_runtime ? json(path_to_utf8(*s.app_runtime)) : json(nullptr)},
          {"app_runtime_missing", s.app_runtime_missing ? json(*s.app_runtime_missing) : json(nullptr)},
          {"environment", settings},
          {"skipped", s.skipped},
          {"kernels", kernels},
          {"flavour_problem", s.flavour_problem ? json(*s.flavour_problem) : json(nullptr)},
          {"native_rocm", s.native_rocm ? json(*s.native_rocm) : json(nullptr)},
          {"notes", s.notes}};
}

}  // namespace zcuda::apps
