#pragma once
// Starting a program so that the CUDA libraries of a chosen folder (a ZLUDA install) are the
// ones it loads, ahead of the system's. Linux: the folder goes first on LD_LIBRARY_PATH.
// Windows: the program is copied into a temporary folder beside links to the folder's DLLs (the
// application folder is searched first), or run through the folder's zluda.exe when present.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::platform {

// How a runtime folder was put ahead of the system's libraries. The words (to_string) are what
// verify results store: "system" (nothing put first), "LD_LIBRARY_PATH", "copy beside DLLs",
// "zluda.exe".
enum class LaunchMethod { system, library_path, copy_beside_dlls, zluda_exe };
std::string_view to_string(LaunchMethod method);
std::optional<LaunchMethod> launch_method_from(std::string_view word);

// The path of the running executable (/proc/self/exe; GetModuleFileNameW).
Result<std::filesystem::path> current_executable();

// How to start one program with a runtime folder first. Owns any temporary folder it made and
// removes it on destruction.
class RuntimeLaunch {
 public:
  // `runtime_dir` empty: the system's libraries, environment unchanged.
  static Result<RuntimeLaunch> prepare(const std::filesystem::path& program, const std::optional<std::filesystem::path>& runtime_dir);

  RuntimeLaunch(RuntimeLaunch&& other) noexcept;
  RuntimeLaunch& operator=(RuntimeLaunch&& other) noexcept;
  RuntimeLaunch(const RuntimeLaunch&) = delete;
  RuntimeLaunch& operator=(const RuntimeLaunch&) = delete;
  ~RuntimeLaunch();

  // A process spec that runs the program with `args`; streams and timeout are left to the caller.
  ProcessSpec spec(const std::vector<std::string>& args) const;

  // Through zluda.exe: makes its arguments after "--" from the program (UTF-8) and its
  // arguments, for how this launcher passes them on (zcuda/launch/launcher.hpp). Unset: as given.
  using LauncherEncoder = std::function<std::vector<std::string>(const std::string& program, const std::vector<std::string>& args)>;
  void set_launcher_encoder(LauncherEncoder encoder) { encoder_ = std::move(encoder); }

  // How the runtime was put first, for the report.
  LaunchMethod method() const { return method_; }

 private:
  RuntimeLaunch() = default;
  std::filesystem::path program_;
  std::vector<std::string> prefix_args_;         // zluda.exe's "--", the probe
  std::optional<std::filesystem::path> target_;  // zluda.exe's program
  LauncherEncoder encoder_;
  Environment environment_;
  std::optional<std::filesystem::path> temp_dir_;
  LaunchMethod method_ = LaunchMethod::system;
};

}  // namespace zcuda::platform
