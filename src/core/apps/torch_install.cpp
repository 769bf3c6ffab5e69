// Finding a Python application's torch and reading what it was built for (docs/apps.md).
#include <zcuda/apps/torch_install.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/whole_number.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;
using platform::Os;

namespace {

// The venv (or install) root of an interpreter: a venv's bin/ or Scripts/ sits under it; a
// Windows python.org install keeps python.exe in its root.
fs::path install_root(const fs::path& interpreter) {
  const fs::path dir = interpreter.parent_path();
  const std::string name = ascii_lower(path_to_utf8(dir.filename()));
  return name == "bin" || name == "scripts" ? dir.parent_path() : dir;
}

// site-packages folders under a root, as venvs and installs lay them out.
std::vector<fs::path> site_packages(const fs::path& root, Os os) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (os == Os::windows) {
    for (const char* lib : {"Lib", "lib"}) {
      if (fs::is_directory(root / lib / "site-packages", ec)) {
        out.push_back(root / lib / "site-packages");
        break;
      }
    }
    return out;
  }
  for (const char* lib : {"lib", "lib64"}) {
    for (fs::directory_iterator it(root / lib, ec), end; !ec && it != end; it.increment(ec)) {
      if (path_to_utf8(it->path().filename()).starts_with("python") && fs::is_directory(it->path() / "site-packages", ec)) {
        out.push_back(it->path() / "site-packages");
      }
    }
  }
  return out;
}

std::optional<TorchInstall> torch_at(const fs::path& package, const fs::path& interpreter, bool venv, std::string found_by) {
  if (!platform::is_file(package / "version.py") && !platform::is_file(package / "__init__.py")) return std::nullopt;
  TorchInstall t;
  t.interpreter = interpreter;
  t.package = package;
  t.lib = package / "lib";
  t.venv = venv;
  t.found_by = std::move(found_by);
  if (auto text = platform::read_file(package / "version.py", 1u << 20)) {
    auto v = parse_version_py(*text);
    t.version = v.version;
    t.cuda = v.cuda;
    t.hip = v.hip;
  }
  return t;
}

}  // namespace

bool is_python(const fs::path& program, Os os) {
  // python, python3 or python3.N (Windows: with .exe, and pythonw.exe); plain string checks, as
  // every launch asks this and compiling a std::regex costs more than the rest of it.
  std::string name = path_to_utf8(program.filename());
  if (os == Os::windows) {
    name = ascii_lower(name);
    if (name == "pythonw.exe") return true;
    if (!name.ends_with(".exe")) return false;
    name.resize(name.size() - 4);
  }
  if (name == "python" || name == "python3") return true;
  return name.starts_with("python3.") && whole_number<unsigned>(std::string_view(name).substr(8)).has_value();
}

std::optional<fs::path> venv_interpreter(const fs::path& folder, Os os) {
  for (const char* venv : {"venv", ".venv", "env", ""}) {
    const fs::path root = *venv ? folder / venv : folder;
    if (!platform::is_file(root / "pyvenv.cfg")) continue;
    const fs::path python = os == Os::windows ? root / "Scripts" / "python.exe" : root / "bin" / "python";
    std::error_code ec;
    if (fs::exists(python, ec)) return python;
  }
  return std::nullopt;
}

TorchVersion parse_version_py(std::string_view text) {
  // version.py is generated: `__version__ = '2.7.0+cu118'`, `cuda: Optional[str] = '11.8'`,
  // `hip: Optional[str] = None` (older releases write `cuda = '11.8'`).
  TorchVersion v;
  static const std::regex line(R"re(^(\w+)\s*(?::[^=\n]*)?=\s*(?:'([^'\n]*)'|"([^"\n]*)"|None)\s*$)re", std::regex::multiline);
  std::string body(text);
  for (std::sregex_iterator it(body.begin(), body.end(), line, std::regex_constants::match_not_null), end; it != end; ++it) {
    const auto& m = *it;
    std::optional<std::string> value;
    if (m[2].matched) value = m[2].str();
    if (m[3].matched) value = m[3].str();
    const std::string key = m[1].str();
    if (key == "__version__") v.version = value;
    if (key == "cuda") v.cuda = value;
    if (key == "hip") v.hip = value;
  }
  return v;
}

namespace {

// pyvenv.cfg's key = value lines.
std::map<std::string, std::string> venv_config(const fs::path& venv_root) {
  std::map<std::string, std::string> out;
  auto text = platform::read_file(venv_root / "pyvenv.cfg", 64u << 10);
  if (!text) return out;
  static const std::regex line(R"(^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$)", std::regex::multiline);
  for (std::sregex_iterator it(text->begin(), text->end(), line), end; it != end; ++it) out[ascii_lower((*it)[1].str())] = (*it)[2].str();
  return out;
}

// A venv made with --system-site-packages imports the base install's packages too: pyvenv.cfg
// names the base interpreter's folder (`home`) and whether they are included. The base's
// site-packages folders, as python.org installs and Debian lay them out, read as files: nothing
// is run to find them.
std::vector<fs::path> base_site_packages(const fs::path& venv_root, Os os) {
  const auto config = venv_config(venv_root);
  const auto home = config.find("home");
  const auto system_site = config.find("include-system-site-packages");
  if (home == config.end() || system_site == config.end() || ascii_lower(system_site->second) != "true") return {};
  std::string version;
  for (const char* key : {"version", "version_info"}) {
    if (const auto v = config.find(key); v != config.end()) version = v->second;
  }
  const fs::path bin = path_from_utf8(home->second);
  const fs::path prefix = os == Os::windows ? bin : bin.parent_path();
  std::vector<fs::path> out = site_packages(prefix, os);
  if (os != Os::windows) {
    // Debian: packages of the distribution in dist-packages, of pip in local/.../dist-packages.
    const std::string minor = version.substr(0, version.find('.', version.find('.') + 1));
    std::error_code ec;
    for (const fs::path& dist : {prefix / "lib/python3/dist-packages", prefix / "local/lib" / ("python" + minor) / "dist-packages",
                                 prefix / "lib" / ("python" + minor) / "dist-packages"}) {
      if (fs::is_directory(dist, ec)) out.push_back(dist);
    }
  }
  return out;
}

// "3.11" from a name such as python3.11, python311.dll or version 3.11.9.
std::optional<std::string> minor_version_in(const std::string& text) {
  static const std::regex dotted(R"((?:^|[^0-9])(3)\.([0-9]{1,2})(?:[^0-9]|$))");
  static const std::regex packed(R"(^python(3)([0-9]{1,2})\.dll$)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(text, m, dotted) || std::regex_match(text, m, packed)) return m[1].str() + "." + m[2].str();
  return std::nullopt;
}

// The interpreter's X.Y, read from files: pyvenv.cfg's version, the program's name (or, on Linux,
// the name it links to: python3 -> python3.11), a Windows install's pythonXY.dll, the
// lib/pythonX.Y folder of an install.
std::optional<std::string> python_minor_version(const fs::path& interpreter, const fs::path& root, Os os) {
  const auto config = venv_config(root);
  for (const char* key : {"version", "version_info"}) {
    if (auto it = config.find(key); it != config.end()) {
      if (auto v = minor_version_in(it->second)) return v;
    }
  }
  if (auto v = minor_version_in(path_to_utf8(interpreter.filename()))) return v;
  std::error_code ec;
  if (os != Os::windows) {
    const fs::path target = fs::canonical(interpreter, ec);
    if (!ec) {
      if (auto v = minor_version_in(path_to_utf8(target.filename()))) return v;
    }
  }
  const fs::path home = config.count("home") ? path_from_utf8(config.at("home")) : interpreter.parent_path();
  const fs::path prefix = os == Os::windows ? home : home.parent_path();
  for (fs::directory_iterator it(os == Os::windows ? prefix : prefix / "lib", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = path_to_utf8(it->path().filename());
    if (os == Os::windows ? ascii_lower(name).starts_with("python3") && ascii_lower(name).ends_with(".dll") : name.starts_with("python3.")) {
      if (auto v = minor_version_in(name)) return v;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> user_site_packages(const fs::path& interpreter, Os os, const platform::Environment& env) {
  auto var = [&](const char* name) -> std::optional<std::string> {
    for (const auto& [key, value] : env) {
      if (os == Os::windows ? ascii_iequals(key, name) : key == name) return value;
    }
    return std::nullopt;
  };
  // site.py: PYTHONNOUSERSITE turns it off; a venv turns it off unless it includes the system's packages.
  if (auto off = var("PYTHONNOUSERSITE"); off && !off->empty()) return std::nullopt;
  const fs::path root = install_root(interpreter);
  if (platform::is_file(root / "pyvenv.cfg")) {
    const auto config = venv_config(root);
    auto it = config.find("include-system-site-packages");
    if (it == config.end() || ascii_lower(it->second) != "true") return std::nullopt;
  }
  const auto version = python_minor_version(interpreter, root, os);
  if (!version) return std::nullopt;
  // site.py's _getuserbase and _get_path: %APPDATA%\Python\PythonXY\site-packages on Windows,
  // ~/.local/lib/pythonX.Y/site-packages elsewhere; PYTHONUSERBASE replaces the base.
  std::optional<fs::path> base;
  if (auto user_base = var("PYTHONUSERBASE"); user_base && !user_base->empty()) {
    base = path_from_utf8(*user_base);
  } else if (os == Os::windows) {
    if (auto appdata = var("APPDATA"); appdata && !appdata->empty()) base = path_from_utf8(*appdata) / "Python";
  } else if (auto home = var("HOME"); home && !home->empty()) {
    base = path_from_utf8(*home) / ".local";
  }
  if (!base) return std::nullopt;
  std::string nodot = *version;
  nodot.erase(std::remove(nodot.begin(), nodot.end(), '.'), nodot.end());
  return os == Os::windows ? *base / ("Python" + nodot) / "site-packages" : *base / "lib" / ("python" + *version) / "site-packages";
}

std::optional<TorchInstall> find_torch(const fs::path& interpreter, Os os, bool ask_interpreter) {
  const fs::path root = install_root(interpreter);
  const bool venv = platform::is_file(root / "pyvenv.cfg");
  // The user's site-packages (pip install --user) comes before the others on sys.path (site.py
  // adds it first); the interpreter's own environment decides it, as it would for the program.
  const auto user_site = os == platform::current_os() ? user_site_packages(interpreter, os, platform::current_environment()) : std::nullopt;
  if (user_site) {
    if (auto t = torch_at(*user_site / "torch", interpreter, venv, "files (the user's site-packages)")) return t;
  }
  for (const auto& site : site_packages(root, os)) {
    if (auto t = torch_at(site / "torch", interpreter, venv, "files")) return t;
  }
  if (venv) {
    for (const auto& site : base_site_packages(root, os)) {
      if (auto t = torch_at(site / "torch", interpreter, venv, "files (the base install, pyvenv.cfg)")) return t;
    }
  }
  // Running the interpreter runs the folder's code: only for commands that launch the
  // application anyway (run, bench, verify --app), never to inspect a folder.
  if (!ask_interpreter || os != platform::current_os()) return std::nullopt;
  // find_spec locates the package without importing it (importing torch takes seconds).
  platform::ProcessSpec spec;
  spec.program = interpreter;
  spec.args = {"-I", "-c", "import importlib.util as u; s = u.find_spec('torch'); print(s.submodule_search_locations[0] if s else '')"};
  spec.streams = platform::StreamMode::capture;
  spec.timeout = std::chrono::seconds(30);
  auto ran = platform::run_process(spec);
  if (!ran || ran->exit_code != 0) return std::nullopt;
  std::string out = ran->out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return std::nullopt;
  return torch_at(path_from_utf8(out), interpreter, venv, "asked the interpreter");
}

std::optional<std::string> flavour_problem(const TorchInstall& torch, family::Family family) {
  const std::string version = torch.version.value_or("(version unknown)");
  if (torch.hip) {
    return fmt::format("torch {} is a ROCm build (HIP {}): it runs on AMD GPUs by itself, and ZLUDA has nothing to do; run it without zcuda", version,
                       *torch.hip);
  }
  if (!torch.cuda) {
    return fmt::format(
        "torch {} is a CPU-only build (its version.py names no CUDA): ZLUDA cannot give it a GPU; install a CUDA build of torch "
        "(for example +cu118 or +cu126) into this interpreter",
        version);
  }
  if (family == family::Family::lshqqytiger && !torch.cuda->starts_with("11.")) {
    return fmt::format(
        "torch {} is built for CUDA {}, and lshqqytiger's ZLUDA serves CUDA 11 names (cublas64_11.dll, cusparse64_11.dll, "
        "nvrtc64_112_0.dll): install torch +cu118 as the application's installer does",
        version, *torch.cuda);
  }
  return std::nullopt;
}

nlohmann::json to_json(const TorchInstall& t) {
  using nlohmann::json;
  auto opt = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
  return {{"interpreter", path_to_utf8(t.interpreter)},
          {"package", path_to_utf8(t.package)},
          {"lib", path_to_utf8(t.lib)},
          {"version", opt(t.version)},
          {"cuda", opt(t.cuda)},
          {"hip", opt(t.hip)},
          {"venv", t.venv},
          {"found_by", t.found_by}};
}

}  // namespace zcuda::apps
