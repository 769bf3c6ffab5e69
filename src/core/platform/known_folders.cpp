#include <zcuda/platform/known_folders.hpp>

#include <zcuda/platform/os.hpp>

#ifdef _WIN32
#include <windows.h>
#include <lmcons.h>
#include <shlobj.h>
#else
#include <pwd.h>
#include <unistd.h>
#endif

#include <zcuda/base/path_text.hpp>

namespace zcuda::platform {

#ifdef _WIN32
Result<UserFolders> user_folders() {
  PWSTR raw = nullptr;
  if (FAILED(SHGetKnownFolderPath(FOLDERID_LocalAppData, KF_FLAG_DEFAULT, nullptr, &raw))) {
    CoTaskMemFree(raw);
    return fail(ErrorKind::environment, "Windows did not report the LocalAppData folder", "Pass --home DIR or set ZCUDA_HOME.");
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
    return fail(ErrorKind::environment, "HOME is not set, so zcuda cannot choose its folders", "Pass --home DIR or set ZCUDA_HOME.");
  }
  std::filesystem::path h = home ? std::filesystem::path(*home) : std::filesystem::path();
  return UserFolders{data.value_or(h / ".local/share"), cache.value_or(h / ".cache"), state.value_or(h / ".local/state")};
}
#endif

namespace {

std::optional<std::filesystem::path> absolute_env(std::string_view var) {
  auto value = get_env(var);
  if (!value || value->empty()) return std::nullopt;
  auto path = path_from_utf8(*value);
  if (!path.is_absolute()) return std::nullopt;
  return path;
}

std::string account_name() {
#ifdef _WIN32
  wchar_t name[UNLEN + 1];
  DWORD size = UNLEN + 1;
  if (!GetUserNameW(name, &size) || size == 0) return {};
  return path_to_utf8(std::filesystem::path(std::wstring(name, size - 1)));
#else
  const passwd* entry = getpwuid(getuid());
  return entry != nullptr && entry->pw_name != nullptr ? std::string(entry->pw_name) : std::string();
#endif
}

}  // namespace

CacheRoots cache_roots() {
  CacheRoots roots;
#ifdef _WIN32
  // Programs see %LOCALAPPDATA%; the known folder stands in when it is unset.
  roots.profile = absolute_env("USERPROFILE");
  roots.user_cache = absolute_env("LOCALAPPDATA");
#else
  roots.profile = absolute_env("HOME");
  roots.user_cache = absolute_env("XDG_CACHE_HOME");
#endif
  if (!roots.user_cache) {
    if (auto folders = user_folders()) roots.user_cache = folders->cache;
  }
  // tempfile.gettempdir() tries TMPDIR, TEMP and TMP, then the OS's own choice.
  for (const char* var : {"TMPDIR", "TEMP", "TMP"}) {
    if (auto dir = absolute_env(var)) {
      roots.temp = *dir;
      break;
    }
  }
  if (roots.temp.empty()) {
    std::error_code ec;
    roots.temp = std::filesystem::temp_directory_path(ec);
  }
  for (const char* var : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
    if (auto name = get_env(var); name && !name->empty()) {
      roots.user = *name;
      break;
    }
  }
  if (roots.user.empty()) roots.user = account_name();
  return roots;
}

}  // namespace zcuda::platform
