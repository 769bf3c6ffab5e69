// Reading and validating application profiles (docs/apps.md, "The profile format").
#include <zcuda/apps/profile.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/enum_words.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;
using nlohmann::json;

std::string_view to_string(Into into) {
  switch (into) {
    case Into::none:
      return "none";
    case Into::torch_lib:
      return "torch_lib";
    case Into::program:
      return "program";
  }
  return "none";
}

std::string_view to_string(Unless unless) { return unless == Unless::hipblaslt_kernels ? "hipblaslt_kernels" : "nothing"; }

std::string_view to_string(LaunchMode mode) { return mode == LaunchMode::direct ? "direct" : "launcher"; }

std::string_view to_string(Check check) {
  switch (check) {
    case Check::torch:
      return "torch";
    case Check::fatbin:
      return "fatbin";
    case Check::physx:
      return "physx";
    case Check::none:
      return "none";
  }
  return "none";
}

bool Profile::runs_on(platform::Os target) const { return os.empty() || std::find(os.begin(), os.end(), target) != os.end(); }

Placement Profile::placement_on(platform::Os target) const {
  auto found = placement.find(target);
  return found == placement.end() ? Placement{} : found->second;
}

namespace {

// A name map's file name: one plain name, never a folder step, and never zcuda's own stage folder
// (a profile must not make zcuda place or keep files over its journal and backups).
bool is_plain_file_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find_first_of("/\\:") != std::string::npos) return false;
  return ascii_lower(name) != ".zcuda-stage" && !ascii_lower(name).starts_with(".zcuda-stage.");
}

// The family a profile needs: family's own words, less "unknown", which a profile cannot need.
std::optional<family::Family> needed_family(std::string_view word) {
  auto read = family::family_from_word(word);
  if (read == family::Family::unknown) return std::nullopt;
  return read;
}

// Each field read returns a Result; these keep the reader a list of fields rather than of checks.
#define ZCUDA_APPS_TRY(target, expr)                     \
  do {                                                   \
    auto tried_ = (expr);                                \
    if (!tried_) return std::unexpected(tried_.error()); \
    target = std::move(*tried_);                         \
  } while (0)
#define ZCUDA_APPS_TRY_STATUS(expr)                      \
  do {                                                   \
    auto tried_ = (expr);                                \
    if (!tried_) return std::unexpected(tried_.error()); \
  } while (0)

// Reads one profile, each problem named by its JSON path.
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  Result<Profile> profile(const json& j, const std::string& at) {
    Profile p;
    p.origin = origin_;
    if (!j.is_object()) return bad(at, "expected an object");
    for (const auto& [key, value] : j.items()) {
      static const std::vector<std::string> known = {"name",
                                                     "title",
                                                     "family",
                                                     "os",
                                                     "recognise",
                                                     "runtime",
                                                     "placement",
                                                     "environment",
                                                     "compute_capability",
                                                     "launch",
                                                     "stage",
                                                     "warmup",
                                                     "check",
                                                     "steam_launch_option",
                                                     "notes",
                                                     "drops_path",
                                                     "runtime_variable",
                                                     "runtime_relative_to",
                                                     "launch_notes",
                                                     "attention",
                                                     "check_loader"};
      if (std::find(known.begin(), known.end(), key) == known.end()) return bad(at + "." + key, "not a profile field (docs/apps.md lists them)");
    }
    ZCUDA_APPS_TRY(p.name, text(j, at, "name", true));
    if (p.name.empty() ||
        !std::all_of(p.name.begin(), p.name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; })) {
      return bad(at + ".name", "expected lower-case letters, digits and '-'");
    }
    ZCUDA_APPS_TRY(p.title, text(j, at, "title", true));
    std::string family_word;
    ZCUDA_APPS_TRY(family_word, text(j, at, "family", true));
    auto family = needed_family(family_word);
    if (!family) return bad(at + ".family", fmt::format("expected upstream or lshqqytiger, got \"{}\"", family_word));
    p.family = *family;
    if (j.contains("os")) {
      ZCUDA_APPS_TRY_STATUS(each_string(j["os"], at + ".os", [&](const std::string& word, const std::string& here) -> Status {
        auto os = os_from_word(word);
        if (!os) return bad_status(here, fmt::format("expected windows or linux, got \"{}\"", word));
        p.os.push_back(*os);
        return {};
      }));
    }
    if (!j.contains("recognise") || !j["recognise"].is_array() || j["recognise"].empty())
      return bad(at + ".recognise", "expected a list of one or more markers");
    for (std::size_t i = 0; i < j["recognise"].size(); ++i) {
      auto marker = read_marker(j["recognise"][i], fmt::format("{}.recognise[{}]", at, i));
      if (!marker) return std::unexpected(marker.error());
      p.recognise.push_back(std::move(*marker));
    }
    if (j.contains("runtime")) {
      std::string runtime;
      ZCUDA_APPS_TRY(runtime, text(j, at, "runtime", true));
      if (!relative_path(runtime)) return bad(at + ".runtime", "expected a relative path with '/' (no '..')");
      p.runtime = runtime;
    }
    if (j.contains("runtime_variable")) {
      std::string variable;
      ZCUDA_APPS_TRY(variable, text(j, at, "runtime_variable", true));
      if (variable.empty() || variable.find('=') != std::string::npos) return bad(at + ".runtime_variable", "expected a variable name");
      p.runtime_variable = variable;
    }
    if (j.contains("runtime_relative_to")) {
      std::string base;
      ZCUDA_APPS_TRY(base, text(j, at, "runtime_relative_to", true));
      if (base != "app" && base != "working_dir")
        return bad(at + ".runtime_relative_to", fmt::format("expected app or working_dir, got \"{}\"", base));
      p.runtime_from_working_dir = base == "working_dir";
    }
    if ((p.runtime_variable || p.runtime_from_working_dir) && !p.runtime)
      return bad(at + ".runtime", "missing (runtime_variable and runtime_relative_to need it)");
    if (j.contains("placement")) {
      if (!j["placement"].is_object()) return bad(at + ".placement", "expected an object keyed by windows or linux");
      for (const auto& [word, value] : j["placement"].items()) {
        auto os = os_from_word(word);
        if (!os) return bad(at + ".placement." + word, "expected windows or linux");
        auto placement = read_placement(value, at + ".placement." + word);
        if (!placement) return std::unexpected(placement.error());
        p.placement[*os] = std::move(*placement);
      }
    }
    if (j.contains("environment")) {
      if (!j["environment"].is_array()) return bad(at + ".environment", "expected a list");
      for (std::size_t i = 0; i < j["environment"].size(); ++i) {
        auto setting = read_setting(j["environment"][i], fmt::format("{}.environment[{}]", at, i));
        if (!setting) return std::unexpected(setting.error());
        p.environment.push_back(std::move(*setting));
      }
    }
    if (j.contains("drops_path")) {
      const json& d = j["drops_path"];
      if (!d.is_object()) return bad(at + ".drops_path", "expected an object with containing and why");
      PathDrop drop;
      ZCUDA_APPS_TRY(drop.containing, text(d, at + ".drops_path", "containing", true));
      ZCUDA_APPS_TRY(drop.why, text(d, at + ".drops_path", "why", true));
      if (drop.containing.empty()) return bad(at + ".drops_path.containing", "expected the text a dropped entry contains");
      p.drops_path = std::move(drop);
    }
    if (j.contains("compute_capability")) {
      if (j["compute_capability"].is_object()) {
        const json& c = j["compute_capability"];
        std::string value;
        ZCUDA_APPS_TRY(value, text(c, at + ".compute_capability", "value", true));
        const bool cc_form = value.size() == 3 && value[1] == '.' && value[0] >= '0' && value[0] <= '9' && value[2] >= '0' && value[2] <= '9';
        if (!cc_form) return bad(at + ".compute_capability.value", fmt::format("expected MAJOR.MINOR (8.5), got \"{}\"", value));
        ZCUDA_APPS_TRY(p.compute_capability_why, text(c, at + ".compute_capability", "why", true));
        p.compute_capability = value;
      } else {
        std::string cc;
        ZCUDA_APPS_TRY(cc, text(j, at, "compute_capability", true));
        if (cc != "family_default") return bad(at + ".compute_capability", "expected \"family_default\" or {\"value\", \"why\"}");
        p.family_default_cc = true;
      }
    }
    std::string launch = "launcher";
    ZCUDA_APPS_TRY(launch, text(j, at, "launch", false, "launcher"));
    auto mode = enum_from_word(launch, {LaunchMode::launcher, LaunchMode::direct});
    if (!mode) return bad(at + ".launch", fmt::format("expected launcher or direct, got \"{}\"", launch));
    p.launch = *mode;
    if (j.contains("stage")) {
      if (!j["stage"].is_boolean()) return bad(at + ".stage", "expected true or false");
      p.stage = j["stage"].get<bool>();
    }
    auto warmup = read_warmup(j.value("warmup", json("program")), at + ".warmup");
    if (!warmup) return std::unexpected(warmup.error());
    p.warmup = *warmup;
    std::string check;
    ZCUDA_APPS_TRY(check, text(j, at, "check", false, "none"));
    auto c = enum_from_word(check, {Check::torch, Check::fatbin, Check::physx, Check::none});
    if (!c) return bad(at + ".check", fmt::format("expected torch, fatbin, physx or none, got \"{}\"", check));
    p.check = *c;
    if (j.contains("check_loader")) {
      std::string loader;
      ZCUDA_APPS_TRY(loader, text(j, at, "check_loader", true));
      if (loader != "sdnext")
        return bad(at + ".check_loader", fmt::format("expected sdnext (the loaders manifests/torch-check.py knows), got \"{}\"", loader));
      if (p.check != Check::torch) return bad(at + ".check_loader", "a loader runs before the torch check: needs check: torch");
      p.check_loader = loader;
    }
    if (j.contains("steam_launch_option")) {
      std::string line;
      ZCUDA_APPS_TRY(line, text(j, at, "steam_launch_option", true));
      if (line.find("%command%") == std::string::npos) return bad(at + ".steam_launch_option", "expected a line containing %command%");
      p.steam_launch_option = line;
    }
    if (j.contains("attention")) {
      const json& a = j["attention"];
      const std::string here = at + ".attention";
      if (!a.is_object()) return bad(here, "expected an object with off, by and why");
      Attention attention;
      ZCUDA_APPS_TRY_STATUS(each_string(a.value("off", json()), here + ".off", [&](const std::string& name, const std::string& where) -> Status {
        if (name != "flash" && name != "mem_efficient" && name != "math" && name != "cudnn") {
          return bad_status(where, fmt::format("expected flash, mem_efficient, math or cudnn, got \"{}\"", name));
        }
        attention.off.push_back(name);
        return {};
      }));
      std::string by;
      ZCUDA_APPS_TRY(by, text(a, here, "by", true));
      if (by != "app" && by != "hook") return bad(here + ".by", fmt::format("expected app or hook, got \"{}\"", by));
      attention.by_hook = by == "hook";
      ZCUDA_APPS_TRY(attention.why, text(a, here, "why", true));
      p.attention = std::move(attention);
    }
    if (j.contains("launch_notes")) {
      if (!j["launch_notes"].is_array()) return bad(at + ".launch_notes", "expected a list of {when, os, note}");
      for (std::size_t i = 0; i < j["launch_notes"].size(); ++i) {
        const std::string here = fmt::format("{}.launch_notes[{}]", at, i);
        const json& entry = j["launch_notes"][i];
        if (!entry.is_object()) return bad(here, "expected an object with when and note");
        LaunchNote n;
        std::string when;
        ZCUDA_APPS_TRY(when, text(entry, here, "when", true));
        if (when != "zluda_exe" && when != "without_zluda_exe")
          return bad(here + ".when", fmt::format("expected zluda_exe or without_zluda_exe, got \"{}\"", when));
        n.zluda_exe = when == "zluda_exe";
        if (entry.contains("os")) {
          std::string word;
          ZCUDA_APPS_TRY(word, text(entry, here, "os", true));
          n.os = os_from_word(word);
          if (!n.os) return bad(here + ".os", fmt::format("expected windows or linux, got \"{}\"", word));
        }
        ZCUDA_APPS_TRY(n.note, text(entry, here, "note", true));
        p.launch_notes.push_back(std::move(n));
      }
    }
    if (j.contains("notes")) {
      ZCUDA_APPS_TRY_STATUS(each_string(j["notes"], at + ".notes", [&](const std::string& note, const std::string&) -> Status {
        p.notes.push_back(note);
        return {};
      }));
    }
    return p;
  }

 private:
  std::string origin_;

  Error error_at(const std::string& at, const std::string& what) const {
    Error error{ErrorKind::invalid_input, fmt::format("{}: {}: {}", origin_, at, what), {}, {}};
    error.hint = "The profile format is in docs/apps.md.";
    return error;
  }
  std::unexpected<Error> bad(const std::string& at, const std::string& what) const { return std::unexpected(error_at(at, what)); }
  Status bad_status(const std::string& at, const std::string& what) const { return std::unexpected(error_at(at, what)); }

  static std::optional<platform::Os> os_from_word(std::string_view word) {
    if (word == "windows") return platform::Os::windows;
    if (word == "linux") return platform::Os::linux;
    return std::nullopt;
  }

  static bool relative_path(std::string_view p) {
    if (p.empty() || p.front() == '/' || p.find('\\') != std::string_view::npos || p.find(':') != std::string_view::npos) return false;
    return p != ".." && !p.starts_with("../") && p.find("/../") == std::string_view::npos && !p.ends_with("/..");
  }

  Result<std::string> text(const json& j, const std::string& at, const char* key, bool required, std::string fallback = {}) const {
    if (!j.contains(key)) {
      if (required) return bad(at + "." + key, "missing");
      return fallback;
    }
    if (!j[key].is_string()) return bad(at + "." + key, "expected a string");
    return j[key].get<std::string>();
  }

  template <typename Fn>
  Status each_string(const json& list, const std::string& at, Fn fn) const {
    if (!list.is_array()) return bad_status(at, "expected a list of strings");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string here = fmt::format("{}[{}]", at, i);
      if (!list[i].is_string()) return bad_status(here, "expected a string");
      if (auto done = fn(list[i].get<std::string>(), here); !done) return done;
    }
    return {};
  }

  Result<Marker> read_marker(const json& j, const std::string& at) const {
    if (!j.is_object()) return bad(at, "expected an object");
    Marker m;
    for (const auto& [key, value] : j.items()) {
      if (key != "exists" && key != "program" && key != "machine" && key != "python_torch" && key != "why") {
        return bad(at + "." + key, "not a marker field (exists, program, machine, python_torch, why)");
      }
    }
    if (j.contains("exists")) {
      ZCUDA_APPS_TRY_STATUS(each_string(j["exists"], at + ".exists", [&](const std::string& p, const std::string& here) -> Status {
        if (!relative_path(p)) return bad_status(here, "expected a relative path with '/' (no '..')");
        m.exists.push_back(p);
        return {};
      }));
    }
    if (j.contains("program")) {
      ZCUDA_APPS_TRY_STATUS(each_string(j["program"], at + ".program", [&](const std::string& p, const std::string&) -> Status {
        m.program.push_back(p);
        return {};
      }));
    }
    if (j.contains("machine")) {
      std::string machine;
      ZCUDA_APPS_TRY(machine, text(j, at, "machine", true));
      if (machine != "i386" && machine != "x86_64") return bad(at + ".machine", fmt::format("expected i386 or x86_64, got \"{}\"", machine));
      m.machine = machine;
    }
    if (j.contains("python_torch")) {
      if (!j["python_torch"].is_boolean()) return bad(at + ".python_torch", "expected true or false");
      m.python_torch = j["python_torch"].get<bool>();
    }
    if (m.exists.empty() && m.program.empty() && !m.machine && !m.python_torch) {
      return bad(at, "a marker needs at least one of exists, program, machine, python_torch");
    }
    ZCUDA_APPS_TRY(m.why, text(j, at, "why", true));
    return m;
  }

  Result<Placement> read_placement(const json& j, const std::string& at) const {
    if (!j.is_object()) return bad(at, "expected an object");
    Placement p;
    std::string into;
    ZCUDA_APPS_TRY(into, text(j, at, "into", true));
    auto i = enum_from_word(into, {Into::none, Into::torch_lib, Into::program});
    if (!i) return bad(at + ".into", fmt::format("expected none, torch_lib or program, got \"{}\"", into));
    p.into = *i;
    if (j.contains("names")) {
      if (!j["names"].is_array()) return bad(at + ".names", "expected a list of {from, to}");
      for (std::size_t n = 0; n < j["names"].size(); ++n) {
        const std::string here = fmt::format("{}.names[{}]", at, n);
        const json& entry = j["names"][n];
        if (!entry.is_object()) return bad(here, "expected an object with from and to");
        stage::NameMapping mapping;
        ZCUDA_APPS_TRY(mapping.from, text(entry, here, "from", true));
        ZCUDA_APPS_TRY(mapping.to, text(entry, here, "to", true));
        for (const auto* name : {&mapping.from, &mapping.to}) {
          if (!is_plain_file_name(*name)) return bad(here, fmt::format("\"{}\" is not a plain file name", *name));
        }
        if (entry.contains("keep_original_as")) {
          std::string keep;
          ZCUDA_APPS_TRY(keep, text(entry, here, "keep_original_as", true));
          if (!is_plain_file_name(keep)) return bad(here + ".keep_original_as", fmt::format("\"{}\" is not a plain file name", keep));
          mapping.keep_original_as = keep;
        }
        p.names.push_back(std::move(mapping));
      }
    }
    if (p.into == Into::none && !p.names.empty()) return bad(at + ".names", "names need a folder to go into (into: torch_lib or program)");
    return p;
  }

  Result<Setting> read_setting(const json& j, const std::string& at) const {
    if (!j.is_object()) return bad(at, "expected an object with name, value and why");
    Setting s;
    ZCUDA_APPS_TRY(s.name, text(j, at, "name", true));
    if (s.name.empty() || s.name.find('=') != std::string::npos) return bad(at + ".name", "expected a variable name");
    ZCUDA_APPS_TRY(s.value, text(j, at, "value", true));
    ZCUDA_APPS_TRY(s.why, text(j, at, "why", true));
    if (s.why.empty()) return bad(at + ".why", "every variable says why it is set");
    if (j.contains("unless")) {
      std::string unless;
      ZCUDA_APPS_TRY(unless, text(j, at, "unless", true));
      auto u = enum_from_word(unless, {Unless::hipblaslt_kernels});
      if (!u) return bad(at + ".unless", fmt::format("expected hipblaslt_kernels, got \"{}\"", unless));
      s.unless = *u;
    }
    return s;
  }

  Result<Warmup> read_warmup(const json& j, const std::string& at) const {
    Warmup w;
    if (j.is_object()) {
      // One folder pattern, or several: an application's layout changed between its versions.
      const json globs = j.contains("glob") && j["glob"].is_string() ? json::array({j["glob"]}) : j.value("glob", json());
      if (!globs.is_array() || globs.empty())
        return bad(at + ".glob", "expected a relative folder path with '/', '*' matching one name, or a list of them");
      ZCUDA_APPS_TRY_STATUS(each_string(globs, at + ".glob", [&](const std::string& g, const std::string& here) -> Status {
        if (!relative_path(g)) return bad_status(here, "expected a relative folder path with '/', '*' matching one name");
        w.globs.push_back(g);
        return {};
      }));
      w.kind = Warmup::Kind::glob;
      return w;
    }
    if (!j.is_string()) return bad(at, "expected none, program, torch_lib or {\"glob\": ...}");
    const std::string word = j.get<std::string>();
    if (word == "none")
      w.kind = Warmup::Kind::none;
    else if (word == "program")
      w.kind = Warmup::Kind::program;
    else if (word == "torch_lib")
      w.kind = Warmup::Kind::torch_lib;
    else
      return bad(at, fmt::format("expected none, program, torch_lib or {{\"glob\": ...}}, got \"{}\"", word));
    return w;
  }
};

#undef ZCUDA_APPS_TRY
#undef ZCUDA_APPS_TRY_STATUS

}  // namespace

namespace {

Result<std::vector<Profile>> parse_document(const json& j, std::string_view origin) {
  if (j.is_discarded()) return fail(ErrorKind::invalid_input, fmt::format("{}: not valid JSON", origin), "The profile format is in docs/apps.md.");
  const std::string o(origin);
  if (!j.is_object())
    return fail(ErrorKind::invalid_input, o + ": expected an object with format and profiles", "The profile format is in docs/apps.md.");
  if (!j.contains("format") || !j["format"].is_number_integer() || j["format"].get<int>() != kFormatVersion) {
    return fail(ErrorKind::invalid_input, fmt::format("{}: format: expected {}", o, kFormatVersion), "The profile format is in docs/apps.md.");
  }
  if (!j.contains("profiles") || !j["profiles"].is_array())
    return fail(ErrorKind::invalid_input, o + ": profiles: expected a list", "The profile format is in docs/apps.md.");
  Reader reader(o);
  std::vector<Profile> out;
  for (std::size_t i = 0; i < j["profiles"].size(); ++i) {
    auto p = reader.profile(j["profiles"][i], fmt::format("profiles[{}]", i));
    if (!p) return std::unexpected(p.error());
    if (find(out, p->name)) return fail(ErrorKind::invalid_input, fmt::format("{}: profiles[{}].name: \"{}\" is given twice", o, i, p->name));
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace

Result<std::vector<Profile>> parse(std::string_view json_text, std::string_view origin) {
  return parse_document(json::parse(json_text, nullptr, false), origin);
}

fs::path user_file(const fs::path& home_root) { return home_root / "app-profiles.json"; }

Result<std::vector<Profile>> load(const std::optional<fs::path>& user_profiles) {
  const auto document = knowledge::parsed("app-profiles.json");
  if (!document) return fail(ErrorKind::internal, "this zcuda was built without its application profiles (manifests/app-profiles.json)");
  auto embedded = parse_document(*document, "embedded app-profiles.json");
  if (!embedded) return embedded;
  std::vector<Profile> out;
  std::error_code ec;
  if (user_profiles && fs::exists(*user_profiles, ec)) {
    auto content = platform::read_file(*user_profiles);
    if (!content) return std::unexpected(content.error());
    auto mine = parse(*content, path_to_utf8(*user_profiles));
    if (!mine) return mine;
    out = std::move(*mine);
  }
  for (auto& p : *embedded) {
    if (!find(out, p.name)) out.push_back(std::move(p));
  }
  return out;
}

const Profile* find(const std::vector<Profile>& profiles, std::string_view name) {
  auto it = std::find_if(profiles.begin(), profiles.end(), [&](const Profile& p) { return p.name == name; });
  return it == profiles.end() ? nullptr : &*it;
}

json to_json(const Profile& p) {
  json os = json::array();
  for (auto o : p.os) os.push_back(platform::os_id(o));
  json markers = json::array();
  for (const auto& m : p.recognise) {
    json marker = {{"why", m.why}};
    if (!m.exists.empty()) marker["exists"] = m.exists;
    if (!m.program.empty()) marker["program"] = m.program;
    if (m.machine) marker["machine"] = *m.machine;
    if (m.python_torch) marker["python_torch"] = true;
    markers.push_back(marker);
  }
  json placement = json::object();
  for (const auto& [o, pl] : p.placement) {
    json names = json::array();
    for (const auto& n : pl.names) {
      names.push_back({{"from", n.from}, {"to", n.to}, {"keep_original_as", n.keep_original_as ? json(*n.keep_original_as) : json(nullptr)}});
    }
    placement[std::string(platform::os_id(o))] = {{"into", to_string(pl.into)}, {"names", names}};
  }
  json launch_notes = json::array();
  for (const auto& n : p.launch_notes) {
    launch_notes.push_back(
        {{"when", n.zluda_exe ? "zluda_exe" : "without_zluda_exe"}, {"os", n.os ? json(platform::os_id(*n.os)) : json(nullptr)}, {"note", n.note}});
  }
  json environment = json::array();
  for (const auto& s : p.environment) environment.push_back({{"name", s.name}, {"value", s.value}, {"why", s.why}, {"unless", to_string(s.unless)}});
  return {{"name", p.name},
          {"title", p.title},
          {"family", family::to_string(p.family)},
          {"os", os},
          {"recognise", markers},
          {"runtime", p.runtime ? json(*p.runtime) : json(nullptr)},
          {"runtime_variable", p.runtime_variable ? json(*p.runtime_variable) : json(nullptr)},
          {"runtime_relative_to", p.runtime_from_working_dir ? "working_dir" : "app"},
          {"placement", placement},
          {"environment", environment},
          {"drops_path", p.drops_path ? json{{"containing", p.drops_path->containing}, {"why", p.drops_path->why}} : json(nullptr)},
          {"compute_capability", p.compute_capability  ? json{{"value", *p.compute_capability}, {"why", p.compute_capability_why}}
                                 : p.family_default_cc ? json("family_default")
                                                       : json(nullptr)},
          {"launch", to_string(p.launch)},
          {"stage", p.stage},
          {"check", to_string(p.check)},
          {"check_loader", p.check_loader ? json(*p.check_loader) : json(nullptr)},
          {"steam_launch_option", p.steam_launch_option ? json(*p.steam_launch_option) : json(nullptr)},
          {"notes", p.notes},
          {"launch_notes", launch_notes},
          {"attention",
           p.attention ? json{{"off", p.attention->off}, {"by", p.attention->by_hook ? "hook" : "app"}, {"why", p.attention->why}} : json(nullptr)},
          {"origin", p.origin}};
}

}  // namespace zcuda::apps
