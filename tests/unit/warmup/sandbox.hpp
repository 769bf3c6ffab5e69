#pragma once
// A user's world in a temporary folder: profile, local app data / XDG cache and temp folders
// that zcuda's cache lookups read through the variables a test sets, and a zcuda home.
#include <filesystem>

#include <zcuda/base/path_text.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::test {

struct Sandbox {
  TempDir tmp;
  std::filesystem::path profile = tmp / "home";
  std::filesystem::path local = tmp / "local";
  std::filesystem::path temp = tmp / "temp";
  std::filesystem::path zluda_cache = tmp / "local" / "zluda" / "ComputeCache";

  Sandbox() {
    std::filesystem::create_directories(profile);
    std::filesystem::create_directories(local);
    std::filesystem::create_directories(temp);
  }

  CommandOptions options() const {
    CommandOptions o;
    const auto text = [](const std::filesystem::path& p) { return zcuda::path_to_utf8(p); };
    o.set_env = {{"HOME", text(profile)},       {"USERPROFILE", text(profile)}, {"XDG_CACHE_HOME", text(local)},
                 {"LOCALAPPDATA", text(local)}, {"TMPDIR", text(temp)},         {"LOGNAME", "tester"}};
    o.unset_env = {"TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "MIOPEN_USER_DB_PATH", "MIOPEN_CUSTOM_CACHE_DIR"};
    return o;
  }

  CommandResult zcuda(std::vector<std::string> args, CommandOptions o) const {
    args.insert(args.begin(), {"--home", zcuda::path_to_utf8(tmp / "zcuda home")});
    return run_zcuda(args, o);
  }
  CommandResult zcuda(std::vector<std::string> args) const { return zcuda(std::move(args), options()); }
};

}  // namespace zcuda::test
