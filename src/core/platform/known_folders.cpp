#include <zcuda/platform/known_folders.hpp>

#include <zcuda/platform/os.hpp>

#ifdef _WIN32
#include <windows.h>
#include <shlobj.h>
#endif

namespace zcuda::platform {

#ifdef _WIN32
Result<UserFolders> user_folders() {
  PWSTR raw = nullptr;
  if (FAILED(SHGetKnownFolderPath(FOLDERID_LocalAppData, KF_FLAG_DEFAULT, nullptr, &raw))) {
    CoTaskMemFree(raw);
    return fail(ErrorKind::environment, "Windows did not report the LocalAppData folder",
                "Pass --home DIR or set ZCUDA_HOME.");
  }
  std::filesystem::path local(raw);
  CoTaskMemFree(raw);
  return UserFolders{local, local, local};
}
#else
namespace {
// XDG says a relative value is invalid and must be ignored.
std::optional<std::filesystem::path> xdg(std::string_view var) {
  auto value = get_env(var);
  if (!value || value->empty() || (*value)[0] != '/') return std::nullopt;
  return std::filesystem::path(*value);
}
}  // namespace

Result<UserFolders> user_folders() {
  auto home = get_env("HOME");
  auto data = xdg("XDG_DATA_HOME");
  auto cache = xdg("XDG_CACHE_HOME");
  auto state = xdg("XDG_STATE_HOME");
  if ((!data || !cache || !state) && (!home || home->empty())) {
    return fail(ErrorKind::environment, "HOME is not set, so zcuda cannot choose its folders",
                "Pass --home DIR or set ZCUDA_HOME.");
  }
  std::filesystem::path h = home ? std::filesystem::path(*home) : std::filesystem::path();
  return UserFolders{data.value_or(h / ".local/share"), cache.value_or(h / ".cache"),
                     state.value_or(h / ".local/state")};
}
#endif

}  // namespace zcuda::platform
