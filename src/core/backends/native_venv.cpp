// The steps of a ROCm PyTorch venv from the backends data, and running them (docs/backends.md).
#include <zcuda/backends/native_venv.hpp>

#include <chrono>
#include <regex>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/io_error.hpp>
#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::backends {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kUndoSchema = 1;

std::string utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())); }

bool is_empty_or_missing(const fs::path& dir, std::error_code& ec) {
  if (!fs::exists(dir, ec)) return !ec;
  return fs::is_directory(dir, ec) && fs::is_empty(dir, ec);
}

// What pip installed: the venv's .dist-info folders ("torch-2.11.0+rocm7.13.dist-info").
std::vector<std::string> installed_in(const fs::path& venv, platform::Os os) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<fs::path> sites;
  if (os == platform::Os::windows) {
    sites.push_back(venv / "Lib" / "site-packages");
  } else {
    for (fs::directory_iterator it(venv / "lib", ec), end; !ec && it != end; it.increment(ec)) sites.push_back(it->path() / "site-packages");
  }
  static const std::regex dist(R"((.+)-([^-]+)\.dist-info)");
  for (const auto& site : sites) {
    std::error_code walk;
    for (fs::directory_iterator it(site, walk), end; !walk && it != end; it.increment(walk)) {
      std::smatch m;
      const std::string name = path_to_utf8(it->path().filename());
      if (std::regex_match(name, m, dist)) out.push_back(m[1].str() + " " + m[2].str());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status run_step(const std::vector<std::string>& argv, const std::string& what, std::chrono::seconds timeout, const SetupProgress& progress) {
  platform::ProcessSpec spec;
  spec.program = path_from_utf8(argv.front());
  spec.args.assign(argv.begin() + 1, argv.end());
  spec.streams = progress.show_output ? platform::StreamMode::tee : platform::StreamMode::capture;
  spec.timeout = timeout;
  spec.cancel = progress.cancel;
  // pip: no questions, no look at PyPI for a newer pip.
  auto env = platform::current_environment();
  env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1";
  env["PIP_NO_INPUT"] = "1";
  spec.environment = env;
  auto ran = platform::run_process(spec);
  if (!ran) return std::unexpected(std::move(ran.error()).with_note(what));
  if (ran->cancelled) return fail(ErrorKind::interrupted, fmt::format("{}: stopped by Ctrl-C", what));
  if (ran->timed_out) {
    return fail(ErrorKind::environment, fmt::format("{} did not finish in {} s", what, timeout.count()),
                "Check the network and the index, then try again.");
  }
  if (ran->exit_code != 0) {
    std::string tail = ran->err.empty() ? ran->out : ran->err;
    if (tail.size() > 2000) tail = "…" + tail.substr(tail.size() - 2000);
    Error error{ErrorKind::environment,
                fmt::format("{} failed ({})", what, platform::describe_exit(*ran)),
                "Read its output above; the folder was removed, so the command can be run again.",
                {}};
    if (!tail.empty()) error.notes.push_back(tail);
    return std::unexpected(std::move(error));
  }
  return {};
}

}  // namespace

fs::path NativeSteps::venv_python() const { return os == platform::Os::windows ? venv / "Scripts" / "python.exe" : venv / "bin" / "python"; }

std::vector<std::string> NativeSteps::make_venv() const { return {path_to_utf8(python), "-m", "venv", path_to_utf8(venv)}; }

std::vector<std::string> NativeSteps::pip_install() const {
  std::vector<std::string> argv = {path_to_utf8(venv_python()), "-m", "pip", "install", "--index-url", index_url};
  argv.insert(argv.end(), packages.begin(), packages.end());
  return argv;
}

Result<NativeSteps> native_steps(const Advice& advice, const fs::path& venv, const fs::path& python, const std::optional<std::string>& index_override,
                                 const std::optional<std::string>& environment_index) {
  const std::string gpu = advice.gpu.empty() ? advice.gfx : advice.gfx.empty() ? advice.gpu : fmt::format("{} ({})", advice.gpu, advice.gfx);
  if (advice.pytorch != Backend::native_rocm) {
    return fail(ErrorKind::unsupported, fmt::format("the backends data does not serve {} with native ROCm PyTorch: {}", gpu, advice.pytorch_reason),
                "ZLUDA remains the way for this GPU (zcuda detect, Backends).");
  }
  // pytorch_install: "--index-url", URL, then the packages.
  if (advice.pytorch_install.size() < 3 || advice.pytorch_install[0] != "--index-url") {
    return fail(ErrorKind::unsupported, fmt::format("the backends data names no pip index with packages for {}", gpu),
                "docs/backends.md lists the channels.");
  }
  NativeSteps s;
  s.gfx = advice.gfx;
  s.venv = venv;
  s.python = python;
  s.os = advice.os;
  s.index_url = advice.pytorch_install[1];
  s.index_from = "manifests/backends.json (advice channel)";
  if (index_override) {
    s.index_url = *index_override;
    s.index_from = "--index-url";
  } else if (environment_index && !environment_index->empty()) {
    s.index_url = *environment_index;
    s.index_from = kIndexUrlVariable;
  }
  s.packages.assign(advice.pytorch_install.begin() + 2, advice.pytorch_install.end());
  s.python_versions = advice.python;
  s.sources = advice.sources;
  return s;
}

std::optional<fs::path> base_python(const fs::path& app_interpreter, platform::Os os) {
  fs::path root = app_interpreter.parent_path();
  const std::string dir = ascii_lower(path_to_utf8(root.filename()));
  if (dir == "bin" || dir == "scripts") root = root.parent_path();
  auto text = platform::read_file(root / "pyvenv.cfg", 64u << 10);
  if (!text) return std::nullopt;
  static const std::regex home_line(R"(^\s*home\s*=\s*(.*?)\s*$)", std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(*text, m, home_line)) return std::nullopt;
  const fs::path home = path_from_utf8(m[1].str());
  std::error_code ec;
  for (const char* name : os == platform::Os::windows ? std::vector<const char*>{"python.exe"} : std::vector<const char*>{"python3", "python"}) {
    if (fs::is_regular_file(home / name, ec)) return home / name;
  }
  return std::nullopt;
}

std::string command_line(const std::vector<std::string>& argv, platform::Os os) {
  std::string line;
  for (const auto& a : argv) {
    if (!line.empty()) line += ' ';
    if (os == platform::Os::windows) {
      line += platform::quote_windows_argument(a);
    } else if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+@%,") == std::string::npos) {
      line += a;
    } else {
      std::string quoted = "'";
      for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += quoted + "'";
    }
  }
  return line;
}

Result<SetupResult> setup_native(const NativeSteps& steps, const SetupProgress& progress) {
  std::error_code ec;
  if (!is_empty_or_missing(steps.venv, ec)) {
    return fail(ErrorKind::conflict, fmt::format("{} exists and is not an empty folder", steps.venv),
                "Name a new folder for the ROCm venv; zcuda does not write into one that holds files.");
  }
  const bool existed = fs::exists(steps.venv, ec);
  // What was made is removed on any failure: no half-made venv stays behind.
  auto undo_on_failure = [&](Error error) -> Result<SetupResult> {
    std::error_code rm;
    if (existed) {
      for (fs::directory_iterator it(steps.venv, rm), end; !rm && it != end; it.increment(rm)) fs::remove_all(it->path(), rm);
    } else {
      fs::remove_all(steps.venv, rm);
    }
    if (rm) error.notes.push_back(fmt::format("{} could not be removed entirely: {}", steps.venv, rm.message()));
    return std::unexpected(std::move(error));
  };
  SetupResult result;
  result.venv = steps.venv;
  result.python = steps.venv_python();
  result.started_utc = utc_now();
  result.undo_record = steps.venv / kUndoRecordName;
  if (progress.step) progress.step(fmt::format("step 1/2: {}", command_line(steps.make_venv(), steps.os)));
  if (auto made = run_step(steps.make_venv(), "making the venv", progress.venv_timeout, progress); !made) return undo_on_failure(made.error());
  // The undo record goes in before pip runs: a venv zcuda made is one it may remove.
  json record = steps;
  record["schema"] = kUndoSchema;
  record["created_utc"] = result.started_utc;
  record["undo"] = fmt::format("zcuda apps --undo-native {}", command_line({path_to_utf8(steps.venv)}, steps.os));
  if (auto written = platform::write_file_atomic(result.undo_record, json_text(record) + "\n"); !written) return undo_on_failure(written.error());
  if (progress.step) progress.step(fmt::format("step 2/2: {}", command_line(steps.pip_install(), steps.os)));
  if (auto installed = run_step(steps.pip_install(), "pip install", progress.pip_timeout, progress); !installed) {
    return undo_on_failure(installed.error());
  }
  result.installed = installed_in(steps.venv, steps.os);
  return result;
}

Result<UndoResult> undo_native(const fs::path& venv) {
  std::error_code ec;
  if (!fs::is_directory(venv, ec)) return fail(ErrorKind::not_found, fmt::format("{} is not a folder", venv), "Name the venv --setup-native made.");
  auto text = platform::read_file(venv / kUndoRecordName, 1u << 20);
  if (!text) {
    return fail(ErrorKind::conflict, fmt::format("{} has no {}: zcuda did not make it, and leaves it alone", venv, kUndoRecordName),
                "Remove it yourself if it is yours to remove.");
  }
  const json record = json::parse(*text, nullptr, false);
  if (record.is_discarded() || !record.is_object() || record.value("schema", 0) != kUndoSchema || !record.contains("venv")) {
    return fail(ErrorKind::invalid_input, fmt::format("{} is not an undo record zcuda wrote", venv / kUndoRecordName));
  }
  // The record names the folder it was written for: a copied venv is not removed by its record.
  if (fs::weakly_canonical(path_from_utf8(record.at("venv").get<std::string>()), ec) != fs::weakly_canonical(venv, ec)) {
    return fail(ErrorKind::conflict, fmt::format("{}'s undo record was written for {}", venv, record.at("venv").get<std::string>()),
                "It was moved or copied; remove it yourself.");
  }
  UndoResult out{venv, record.value("created_utc", "")};
  fs::remove_all(venv, ec);
  if (ec) return std::unexpected(io_error("remove", venv, ec));
  return out;
}

void to_json(json& out, const NativeSteps& s) {
  out = {{"gfx", s.gfx},
         {"venv", path_to_utf8(s.venv)},
         {"python", path_to_utf8(s.python)},
         {"venv_python", path_to_utf8(s.venv_python())},
         {"index_url", s.index_url},
         {"index_from", s.index_from},
         {"packages", s.packages},
         {"python_versions", s.python_versions ? json(*s.python_versions) : json(nullptr)},
         {"commands", {s.make_venv(), s.pip_install()}},
         {"sources", s.sources}};
}

}  // namespace zcuda::backends
