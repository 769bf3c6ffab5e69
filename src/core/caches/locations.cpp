// Where each cache lives, found the way its owner finds it:
//   ZLUDA          dirs::cache_dir()/zluda/ComputeCache (zluda_cache; docs/caches.md)
//   MIOpen         ~/.miopen (Windows builds), ~/.cache/miopen (its kernel cache), and the
//                  folders MIOPEN_USER_DB_PATH and MIOPEN_CUSTOM_CACHE_DIR name
//   Triton         TRITON_CACHE_DIR, else ~/.triton/cache
//   TorchInductor  TORCHINDUCTOR_CACHE_DIR, else <temp>/torchinductor_<user> (torch/_inductor/
//                  runtime/cache_dir_utils.py: the user name with \ / : * ? " < > | made '_')
#include <algorithm>

#include <zcuda/caches/caches.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::caches {

namespace fs = std::filesystem;

Inputs live_inputs() {
  return Inputs{platform::cache_roots(), [](std::string_view name) { return platform::get_env(name); }};
}

namespace {

// A variable's folder; relative values are left out (their meaning depends on where the
// program ran).
std::optional<fs::path> folder_from(const Inputs& inputs, std::string_view var) {
  auto value = inputs.env(var);
  if (!value || value->empty()) return std::nullopt;
  fs::path path = zcuda::path_from_utf8(*value);
  if (!path.is_absolute()) return std::nullopt;
  return path;
}

std::string inductor_user(std::string user) {
  for (char& c : user) {
    if (std::string_view("\\/:*?\"<>|").find(c) != std::string_view::npos) c = '_';
  }
  return user;
}

}  // namespace

std::vector<Folder> locate(const Inputs& inputs) {
  std::vector<Folder> out;
  auto add = [&](std::string_view name, const fs::path& path, std::string origin) {
    const fs::path clean = path.lexically_normal();
    for (const auto& f : out) {
      if (f.path == clean) return;
    }
    out.push_back(Folder{std::string(name), clean, std::move(origin)});
  };
  const auto& roots = inputs.roots;
  if (roots.user_cache) add("zluda", *roots.user_cache / "zluda" / "ComputeCache", "default");

  if (auto dir = folder_from(inputs, "MIOPEN_USER_DB_PATH")) add("miopen", *dir, "MIOPEN_USER_DB_PATH");
  if (auto dir = folder_from(inputs, "MIOPEN_CUSTOM_CACHE_DIR")) add("miopen", *dir, "MIOPEN_CUSTOM_CACHE_DIR");
  if (roots.profile) {
    add("miopen", *roots.profile / ".miopen", "default");
    add("miopen", *roots.profile / ".cache" / "miopen", "default");
  }

  if (auto dir = folder_from(inputs, "TRITON_CACHE_DIR")) {
    add("triton", *dir, "TRITON_CACHE_DIR");
  } else if (roots.profile) {
    add("triton", *roots.profile / ".triton" / "cache", "default");
  }

  if (auto dir = folder_from(inputs, "TORCHINDUCTOR_CACHE_DIR")) {
    add("torchinductor", *dir, "TORCHINDUCTOR_CACHE_DIR");
  } else if (!roots.temp.empty() && !roots.user.empty()) {
    add("torchinductor", roots.temp / zcuda::path_from_utf8("torchinductor_" + inductor_user(roots.user)), "default");
  }
  return out;
}

}  // namespace zcuda::caches
