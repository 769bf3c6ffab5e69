// Recognising an application from a folder or a command (docs/apps.md, "How zcuda recognises
// an application"). Generic over the profiles' markers: no profile is named here.
#include <zcuda/apps/recognise.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/binfmt/binfmt.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;
using platform::Os;

namespace {

// How far above a program its application's folder may be: venv\Scripts\python.exe sits two
// levels under ComfyUI's folder, a game's bin\x86\game.exe two under its own.
constexpr int kLevelsUp = 3;

constexpr std::uint16_t kMachineI386 = 0x14c;
constexpr std::uint16_t kMachineAmd64 = 0x8664;

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// The folders an application may live in, nearest first: the folder given; or the program's
// folder and those above it, then the folders of arguments that are files (a script: main.py).
std::vector<fs::path> candidate_folders(const Given& given) {
  std::vector<fs::path> out;
  auto add = [&](const fs::path& p) {
    if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  std::error_code ec;
  // Not canonical: a venv's bin/python is a link to the base interpreter, and the venv is the point.
  const fs::path app = fs::absolute(given.app, ec).lexically_normal();
  if (platform::is_dir(app)) {
    add(app);
    return out;
  }
  fs::path dir = app.parent_path();
  for (int level = 0; level <= kLevelsUp && !dir.empty(); ++level, dir = dir.parent_path()) {
    add(dir);
    if (dir == dir.root_path()) break;
  }
  for (const auto& arg : given.args) {
    const fs::path p = path_from_utf8(arg);
    if (!arg.empty() && arg.front() != '-' && fs::is_regular_file(p, ec)) add(fs::absolute(p, ec).lexically_normal().parent_path());
  }
  return out;
}

bool name_is(const fs::path& program, const std::vector<std::string>& names, Os os) {
  const std::string name = path_to_utf8(program.filename());
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return os == Os::windows ? ascii_iequals(n, name) : n == name; });
}

std::optional<std::uint16_t> pe_machine(const fs::path& program) {
  auto read = binfmt::read_imports(program);
  if (!read || !*read || (*read)->format != binfmt::Format::pe) return std::nullopt;
  return (*read)->machine;
}

// Whether one marker holds for the application in `folder`; the reason it does (or does not).
struct Verdict {
  bool holds = false;
  std::string why;
};

Verdict judge(const Marker& m, const fs::path& folder, const Given& given, const std::optional<fs::path>& program, const Recognition& r) {
  std::vector<std::string> facts;
  if (!m.program.empty()) {
    if (program && name_is(*program, m.program, given.os)) {
      facts.push_back("the program is " + path_to_utf8(program->filename()));
    } else if (m.exists.empty()) {
      return {false, fmt::format("the program is not {}", fmt::join(m.program, " or "))};
    }
  }
  if (!m.exists.empty() && facts.empty()) {
    auto found = std::find_if(m.exists.begin(), m.exists.end(), [&](const std::string& p) { return path_exists(folder / path_from_utf8(p)); });
    if (found == m.exists.end()) return {false, fmt::format("no {} in {}", fmt::join(m.exists, " or "), path_to_utf8(folder))};
    facts.push_back(fmt::format("{} is there", *found));
  }
  if (m.machine) {
    const std::uint16_t wanted = *m.machine == "i386" ? kMachineI386 : kMachineAmd64;
    std::optional<std::uint16_t> machine;
    if (program) machine = pe_machine(*program);
    // A folder given: any program in it of that machine.
    std::error_code ec;
    if (!program) {
      for (fs::directory_iterator it(folder, ec), end; !ec && it != end && !machine; it.increment(ec)) {
        if (ascii_lower(path_to_utf8(it->path().extension())) != ".exe") continue;
        if (auto mm = pe_machine(it->path()); mm == wanted) machine = mm;
      }
    }
    if (machine != wanted) return {false, fmt::format("no {} program", *m.machine)};
    facts.push_back(fmt::format("a {} program", *m.machine));
  }
  if (m.python_torch) {
    if (!r.torch) return {false, r.interpreter ? "its Python has no torch" : "no Python interpreter"};
    facts.push_back(fmt::format("torch {}{} in {}", r.torch->version.value_or("?"), r.torch->cuda ? " (CUDA " + *r.torch->cuda + ")" : " (no CUDA)",
                                path_to_utf8(r.torch->package)));
  }
  return {true, fmt::format("{}: {}", m.why, fmt::join(facts, ", "))};
}

}  // namespace

Recognition recognise(const std::vector<Profile>& profiles, const Given& given) {
  Recognition r;
  r.folders = candidate_folders(given);
  std::error_code ec;
  std::optional<fs::path> program;
  if (!platform::is_dir(given.app)) program = fs::absolute(given.app, ec).lexically_normal();
  // A program that is not Python has no torch of its own, even beside a venv; a folder's venv is
  // the application's.
  if (program && is_python(*program, given.os)) {
    r.interpreter = program;
  } else if (!program) {
    for (const auto& folder : r.folders) {
      if ((r.interpreter = venv_interpreter(folder, given.os))) break;
    }
  }
  if (r.interpreter) r.torch = find_torch(*r.interpreter, given.os, given.ask_interpreter);

  for (const auto& profile : profiles) {
    if (!profile.runs_on(given.os)) {
      r.misses.push_back(fmt::format("{}: not for {}", profile.name, platform::os_id(given.os)));
      continue;
    }
    std::string miss;
    bool matched = false;
    for (const auto& folder : r.folders) {
      Match match{profile, folder, {}, r.torch};
      bool all = true;
      for (const auto& marker : profile.recognise) {
        auto verdict = judge(marker, folder, given, program, r);
        if (!verdict.holds) {
          all = false;
          if (miss.empty()) miss = verdict.why;
          break;
        }
        match.why.push_back(verdict.why);
      }
      if (all) {
        r.matches.push_back(std::move(match));
        matched = true;
        break;
      }
    }
    if (!matched) r.misses.push_back(fmt::format("{}: {}", profile.name, miss));
  }
  return r;
}

Match forced_match(const Profile& profile, const Recognition& recognition) {
  for (const auto& m : recognition.matches) {
    if (m.profile.name == profile.name) return m;
  }
  Match m{profile, recognition.folders.empty() ? fs::path() : recognition.folders.front(), {"--profile " + profile.name}, recognition.torch};
  // The application's own runtime folder decides its root when one of the folders holds it.
  if (profile.runtime) {
    for (const auto& folder : recognition.folders) {
      if (platform::is_dir(folder / path_from_utf8(*profile.runtime))) {
        m.root = folder;
        break;
      }
    }
  }
  return m;
}

nlohmann::json to_json(const Match& m) {
  return {{"profile", m.profile.name},
          {"title", m.profile.title},
          {"root", path_to_utf8(m.root)},
          {"why", m.why},
          {"torch", m.torch ? to_json(*m.torch) : nlohmann::json(nullptr)}};
}

nlohmann::json to_json(const Recognition& r) {
  nlohmann::json folders = nlohmann::json::array();
  for (const auto& f : r.folders) folders.push_back(path_to_utf8(f));
  nlohmann::json matches = nlohmann::json::array();
  for (const auto& m : r.matches) matches.push_back(to_json(m));
  return {{"folders", folders},
          {"interpreter", r.interpreter ? nlohmann::json(path_to_utf8(*r.interpreter)) : nlohmann::json(nullptr)},
          {"torch", r.torch ? to_json(*r.torch) : nlohmann::json(nullptr)},
          {"matches", matches},
          {"misses", r.misses}};
}

}  // namespace zcuda::apps
