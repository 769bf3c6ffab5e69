#include <zcuda/home/home.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/known_folders.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::home {

namespace fs = std::filesystem;

namespace {
Home single_folder(const fs::path& root, ChosenBy chosen_by) { return Home{root, root / "cache", root / "state", root / "logs", chosen_by}; }
}  // namespace

std::string_view to_string(ChosenBy chosen_by) {
  switch (chosen_by) {
    case ChosenBy::flag:
      return "--home";
    case ChosenBy::environment:
      return "ZCUDA_HOME";
    case ChosenBy::os_default:
      return "default";
  }
  return "default";
}

Result<Home> resolve_home(const std::optional<fs::path>& flag) {
  if (flag) {
    if (flag->empty()) return fail(ErrorKind::usage, "--home needs a folder");
    return single_folder(fs::absolute(*flag), ChosenBy::flag);
  }
  if (auto env = platform::get_env("ZCUDA_HOME"); env && !env->empty()) {
    return single_folder(fs::absolute(path_from_utf8(*env)), ChosenBy::environment);
  }
  auto folders = platform::user_folders();
  if (!folders) return std::unexpected(folders.error());
  if (platform::current_os() == platform::Os::windows) {
    return single_folder(folders->data / "zcuda", ChosenBy::os_default);
  }
  // XDG: installs are data, downloads are cache, results and logs are state.
  fs::path state = folders->state / "zcuda";
  return Home{folders->data / "zcuda", folders->cache / "zcuda", state, state / "logs", ChosenBy::os_default};
}

Status create_home_folders(const Home& home) {
  for (const fs::path& folder : {home.root, home.cache, home.state, home.logs}) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return std::unexpected(io_error("create the zcuda folder", folder, ec));
  }
  return {};
}

}  // namespace zcuda::home
