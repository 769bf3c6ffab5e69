#pragma once
// Which profile an application matches, from what the user gave (a folder, or a program and its
// arguments), and why.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/apps/profile.hpp>
#include <zcuda/apps/torch_install.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::apps {

struct Given {
  std::filesystem::path app;      // a folder, or the program (resolved)
  std::vector<std::string> args;  // the program's arguments: a script among them places the app too
  platform::Os os = platform::current_os();
  bool ask_interpreter = true;  // may run the Python interpreter to find torch (only the OS's own)
};

struct Match {
  Profile profile;
  std::filesystem::path root;         // the application's folder, where the markers were found
  std::vector<std::string> why;       // one line per marker
  std::optional<TorchInstall> torch;  // for a Python application: the torch it imports
};

// What recognition looked at: the folders tried and the Python interpreter found, if any.
struct Recognition {
  std::vector<std::filesystem::path> folders;
  std::optional<std::filesystem::path> interpreter;
  std::optional<TorchInstall> torch;
  std::vector<Match> matches;       // best first: the profiles' own order
  std::vector<std::string> misses;  // "blender: no blender.exe" for each profile that did not match, why
};

Recognition recognise(const std::vector<Profile>& profiles, const Given& given);

// The match for `zcuda run --profile NAME`: the profile's markers need not hold, but its folders
// (torch's, the application's own runtime) are still found from what was given.
Match forced_match(const Profile& profile, const Recognition& recognition);

nlohmann::json to_json(const Match& match);
nlohmann::json to_json(const Recognition& recognition);

}  // namespace zcuda::apps
