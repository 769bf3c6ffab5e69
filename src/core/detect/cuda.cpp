// NVIDIA hardware means ZLUDA is not needed; NVIDIA's CUDA libraries on the loader's path can
// be picked up instead of ZLUDA's.
#include <algorithm>
#include <set>

#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>

#include "probes.hpp"
#include "system_view.hpp"

namespace zcuda::detect {

namespace fs = std::filesystem;

namespace {

// Library names ZLUDA provides (Linux sonames and Windows DLL names, prefixes).
bool zluda_provides(const std::string& name) {
  static const char* prefixes[] = {"libcuda.so.1", "libnvidia-ml.so.1", "libcublas.so.", "libcublasLt.so.", "libcusparse.so.",
                                   "libcufft.so.", "libcudnn.so.",      "nvcuda.dll",    "nvml.dll",        "cublas64_",
                                   "cublasLt64_",  "cusparse64_",       "cufft64_",      "cudnn64_"};
  return std::any_of(std::begin(prefixes), std::end(prefixes), [&](const char* p) { return name.starts_with(p); });
}

std::vector<fs::path> loader_dirs(const SystemView& view, const platform::Environment& env, bool windows) {
  std::vector<fs::path> dirs;
  char sep = platform::path_list_separator();
  auto add_list = [&](const std::string& list) {
    std::size_t start = 0;
    while (start <= list.size()) {
      auto end = list.find(sep, start);
      std::string entry = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!entry.empty()) dirs.push_back(path_from_utf8(entry));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  };
  if (windows) {
    if (auto key = platform::variable_key(env, "PATH", platform::Os::windows)) add_list(env.at(*key));
    return dirs;
  }
  if (auto it = env.find("LD_LIBRARY_PATH"); it != env.end() && !view.rooted()) add_list(it->second);
  // /etc/ld.so.conf with its include lines: the folders the dynamic loader searches.
  std::vector<fs::path> confs = {"/etc/ld.so.conf"};
  for (std::size_t i = 0; i < confs.size() && i < 256; ++i) {
    auto text = view.read(confs[i]);
    if (!text) continue;
    std::size_t pos = 0;
    while (pos < text->size()) {
      auto end = text->find('\n', pos);
      std::string line = trim(std::string_view(*text).substr(pos, end == std::string::npos ? std::string::npos : end - pos));
      pos = end == std::string::npos ? text->size() : end + 1;
      if (line.empty() || line[0] == '#') continue;
      if (line.starts_with("include")) {
        fs::path pattern = trim(std::string_view(line).substr(7));
        for (const auto& name : view.list(pattern.parent_path())) {
          if (name.ends_with(".conf")) confs.push_back(pattern.parent_path() / name);
        }
      } else {
        dirs.push_back(line);
      }
    }
  }
  return dirs;
}

}  // namespace

void probe_cuda(const SystemView& view, const platform::Environment& env, Profile& profile) {
  CudaPresence& cuda = profile.cuda;
  cuda.nvidia_gpu = std::any_of(profile.gpus.begin(), profile.gpus.end(), [](const Gpu& g) { return g.vendor_id == kVendorNvidia; });
  if (auto it = env.find("CUDA_PATH"); it != env.end()) cuda.cuda_path_env = it->second;

  std::set<std::string> toolkits;
  if (targets_windows(profile)) {
    auto pf = env.find("ProgramFiles");
    fs::path base = path_from_utf8(pf != env.end() ? pf->second : "C:\\Program Files") / "NVIDIA GPU Computing Toolkit" / "CUDA";
    for (const auto& v : view.list(base)) toolkits.insert(path_text(profile, base / path_from_utf8(v)));
  } else {
    for (const auto& name : view.list("/usr/local")) {
      if (name == "cuda" || name.starts_with("cuda-")) toolkits.insert(path_text(profile, view.canonical(fs::path("/usr/local") / name)));
    }
  }
  if (!cuda.cuda_path_env.empty()) toolkits.insert(cuda.cuda_path_env);
  cuda.toolkits.assign(toolkits.begin(), toolkits.end());

  std::set<std::string> shadowing;
  bool real_driver = false;
  for (const auto& dir : loader_dirs(view, env, targets_windows(profile))) {
    for (const auto& name : view.list(dir)) {
      if (!zluda_provides(name)) continue;
      shadowing.insert(path_text(profile, dir / name));
      if (name == "libcuda.so.1" || name == "nvcuda.dll") real_driver = true;
    }
  }
  cuda.shadowing.assign(shadowing.begin(), shadowing.end());
  bool stub = false;
  for (const auto& t : cuda.toolkits) {
    for (const char* sub : {"lib/stubs/libcuda.so", "lib64/stubs/libcuda.so", "targets/x86_64-linux/lib/stubs/libcuda.so"}) {
      stub = stub || view.exists(path_from_utf8(t) / sub);
    }
  }
  cuda.driver_stub_only = stub && !real_driver;
}

}  // namespace zcuda::detect
