#include <zcuda/platform/runtime_launch.hpp>

#include <system_error>

#include <zcuda/platform/files.hpp>

namespace zcuda::platform {

Result<std::filesystem::path> current_executable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::unexpected(io_error("find the running executable", "/proc/self/exe", ec));
  return path;
}

Result<RuntimeLaunch> RuntimeLaunch::prepare(const std::filesystem::path& program, const std::optional<std::filesystem::path>& runtime_dir) {
  RuntimeLaunch launch;
  launch.program_ = program;
  launch.environment_ = current_environment();
  if (runtime_dir) {
    // The dynamic loader searches LD_LIBRARY_PATH before ld.so.cache and the system folders, so
    // dlopen("libcuda.so.1") in the child finds the folder's copy first.
    std::string value = std::filesystem::absolute(*runtime_dir).string();
    if (auto it = launch.environment_.find("LD_LIBRARY_PATH"); it != launch.environment_.end() && !it->second.empty()) {
      value += ":" + it->second;
    }
    launch.environment_["LD_LIBRARY_PATH"] = value;
    launch.method_ = LaunchMethod::library_path;
  }
  return launch;
}

}  // namespace zcuda::platform
