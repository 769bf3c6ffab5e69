#pragma once
// A ROCm PyTorch venv beside an application's own (docs/backends.md, "A native venv beside the
// application"): the exact steps from the backends data (the advice channel's pip index and the
// gfx's packages), run when the user asks (`zcuda apps --setup-native DIR`), with an undo record
// inside the venv that `--undo-native DIR` follows. The application's own venv is never touched.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/backends/backends.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::backends {

// The variable that replaces the data's pip index (a mirror, a local index, the tests' loopback one).
inline constexpr const char* kIndexUrlVariable = "ZCUDA_NATIVE_INDEX_URL";
// The undo record, written into the venv before pip runs.
inline constexpr const char* kUndoRecordName = "zcuda-native-venv.json";

struct NativeSteps {
  std::string gfx;
  std::filesystem::path venv;    // the folder to make
  std::filesystem::path python;  // the interpreter that makes it
  std::string index_url;
  std::string index_from;  // "backends.json channel therock-nightly", "--index-url", "ZCUDA_NATIVE_INDEX_URL"
  std::vector<std::string> packages;
  std::optional<std::vector<std::string>> python_versions;  // what the index builds, when known
  std::vector<std::string> sources;
  platform::Os os = platform::Os::linux;

  std::filesystem::path venv_python() const;  // venv/bin/python or venv\Scripts\python.exe
  // The commands, each a program and its arguments.
  std::vector<std::string> make_venv() const;
  std::vector<std::string> pip_install() const;
};

// The steps for an advice that says native ROCm with a pip channel; unsupported when the GPU is
// not served natively by the data (the advice's reason says why). `index_override`: --index-url,
// else ZCUDA_NATIVE_INDEX_URL from `environment_index`.
Result<NativeSteps> native_steps(const Advice& advice, const std::filesystem::path& venv, const std::filesystem::path& python,
                                 const std::optional<std::string>& index_override, const std::optional<std::string>& environment_index);

// The interpreter an application's venv was made from (pyvenv.cfg's `home`), for a venv of the
// same Python beside it; nullopt when the interpreter is not a venv's or its base is gone.
std::optional<std::filesystem::path> base_python(const std::filesystem::path& app_interpreter, platform::Os os);

// A command as a person types it (POSIX shell or cmd.exe quoting).
std::string command_line(const std::vector<std::string>& argv, platform::Os os);

struct SetupProgress {
  std::function<void(const std::string&)> step;  // "step 1/2: ..." before each command
  bool show_output = true;                       // pass venv's and pip's output through (pip's own progress)
  std::chrono::seconds venv_timeout{600};
  std::chrono::seconds pip_timeout{3600};
  const std::atomic<bool>* cancel = nullptr;
};

struct SetupResult {
  std::filesystem::path venv;
  std::filesystem::path python;
  std::filesystem::path undo_record;
  std::string started_utc;
  std::vector<std::string> installed;  // "torch 2.11.0+rocm7.13" and the like, read from the venv's .dist-info folders
};

// Makes the venv and installs the packages. Refuses (conflict) a folder that exists and is not
// empty; on any failure removes what it made, so nothing is left half done.
Result<SetupResult> setup_native(const NativeSteps& steps, const SetupProgress& progress);

struct UndoResult {
  std::filesystem::path venv;
  std::string created_utc;
};

// Removes a venv that setup_native made: only with its undo record inside (conflict otherwise).
Result<UndoResult> undo_native(const std::filesystem::path& venv);

void to_json(nlohmann::json& out, const NativeSteps& steps);

}  // namespace zcuda::backends
