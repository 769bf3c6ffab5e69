#pragma once
// A Python application's torch: where it lives (site-packages/torch) and what it says it is
// (torch/version.py: its version and the CUDA or ROCm it was built for), read from the files,
// or, for an interpreter whose torch lies outside its own folder (a venv made with
// --system-site-packages), from the interpreter itself without importing torch.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::apps {

struct TorchInstall {
  std::filesystem::path interpreter;
  std::filesystem::path package;  // .../site-packages/torch
  std::filesystem::path lib;      // package / "lib": the CUDA libraries torch loads
  std::optional<std::string> version;
  std::optional<std::string> cuda;  // "11.8"; none for a CPU-only or ROCm build
  std::optional<std::string> hip;   // a ROCm build's HIP version
  bool venv = false;                // the interpreter belongs to a venv (pyvenv.cfg)
  std::string found_by;             // "files" or "asked the interpreter"
};

// Whether `program` is a Python interpreter (python, python3, python3.12, python.exe, pythonw.exe).
bool is_python(const std::filesystem::path& program, platform::Os os);

// The interpreter of a folder's venv (venv/, .venv/, or the folder itself), if it has one.
std::optional<std::filesystem::path> venv_interpreter(const std::filesystem::path& folder, platform::Os os);

// torch/version.py's facts.
struct TorchVersion {
  std::optional<std::string> version;
  std::optional<std::string> cuda;
  std::optional<std::string> hip;
};
TorchVersion parse_version_py(std::string_view text);

// The user's site-packages the interpreter would search (pip install --user), found from files
// and `env` as CPython's site.py finds it: none when PYTHONNOUSERSITE is set, or in a venv that
// does not include the system's packages; PYTHONUSERBASE, else %APPDATA%\Python\PythonXY or
// ~/.local/lib/pythonX.Y, with X.Y read from pyvenv.cfg, the program's name or its install.
std::optional<std::filesystem::path> user_site_packages(const std::filesystem::path& interpreter, platform::Os os, const platform::Environment& env);

// The torch `interpreter` imports: by the venv's files first, then (when allowed and the
// interpreter is this OS's) by asking it where torch is. nullopt when it has none.
std::optional<TorchInstall> find_torch(const std::filesystem::path& interpreter, platform::Os os, bool ask_interpreter);

// Why this torch cannot work through ZLUDA of `family`, before anything runs: a CPU-only build,
// a ROCm build, or (lshqqytiger) one not built for CUDA 11.8. nullopt when nothing is wrong.
std::optional<std::string> flavour_problem(const TorchInstall& torch, family::Family family);

nlohmann::json to_json(const TorchInstall& torch);

}  // namespace zcuda::apps
