// Symptoms with no message (manifests/symptoms.json): loading them, and the check each runs on
// this machine: ZLUDA's kernel cache (a first run that seems to hang), the installed PhysX System
// Software (a PhysX game that ignores the GPU), the installed runtime's zluda.exe (a launcher
// that starts nothing).
#include <zcuda/explain/explain.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/apps/physx_check.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/base/units.hpp>
#include <zcuda/caches/caches.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/launch/quarantine.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/warmup/warmup.hpp>

namespace zcuda::explain {

namespace fs = std::filesystem;
using nlohmann::json;

std::string_view to_string(SymptomCheck check) {
  switch (check) {
    case SymptomCheck::compute_cache:
      return "compute_cache";
    case SymptomCheck::physx_install:
      return "physx_install";
    case SymptomCheck::launcher:
      return "launcher";
  }
  return "compute_cache";
}

namespace {

bool public_sources(const std::string& source) {
  for (std::size_t at = 0; at <= source.size();) {
    const std::size_t end = std::min(source.find("; ", at), source.size());
    const std::string part = source.substr(at, end - at);
    if (!part.starts_with("https://") || part.find(' ') != std::string::npos) return false;
    at = end + 2;
  }
  return true;
}

std::string utc(std::int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  return fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(t));
}

SymptomFindings check_compute_cache(const home::Home& home) {
  SymptomFindings out;
  const auto inputs = caches::live_inputs();
  std::optional<caches::Usage> cache;
  for (const auto& folder : caches::locate(inputs)) {
    if (folder.name == "zluda" && (!cache || !cache->exists)) cache = caches::measure(folder);
  }
  if (!cache) {
    out.found.push_back("zcuda found no folder for ZLUDA's kernel cache on this machine (no user cache folder).");
    return out;
  }
  const auto& where = cache->folder.path;
  if (!cache->exists || cache->files == 0) {
    out.fits = true;
    out.found.push_back(fmt::format("ZLUDA's kernel cache {} {}: the next run compiles every kernel it loads, which takes minutes.", where,
                                    cache->exists ? "is empty" : "does not exist yet"));
  } else {
    out.found.push_back(fmt::format("ZLUDA's kernel cache {} holds {} in {} files{}.", where, format_bytes(cache->bytes), cache->files,
                                    cache->newest ? ", last written " + utc(*cache->newest) : std::string{}));
  }
  auto installed = launch::installed_runtime(home, platform::current_os());
  if (installed && *installed) {
    const auto built = warmup::runtime_time((*installed)->dir);
    if (built && cache->exists && cache->newest && *cache->newest < *built) {
      out.fits = true;
      out.found.push_back(
          fmt::format("The installed ZLUDA {} ({}) is newer than anything in the cache: its kernels are compiled again on the next run.",
                      (*installed)->version, utc(*built)));
    } else if (built && cache->exists && cache->files > 0) {
      out.found.push_back(
          fmt::format("The cache was written after the installed ZLUDA {} arrived: programs run before start at once; a new "
                      "program or kind of model still compiles once.",
                      (*installed)->version));
    }
  }
  return out;
}

SymptomFindings check_physx() {
  SymptomFindings out;
  apps::CheckRecord record;
  apps::run_physx_check(record);
  if (record.status == apps::CheckStatus::pass) out.fits = false;
  if (record.status == apps::CheckStatus::fail) out.fits = true;
  for (const auto& program : record.facts.value("physx_system_software", json::array())) {
    out.found.push_back(fmt::format("Installed: {} (version {}).", program.value("name", ""), program.value("version", "unknown")));
  }
  out.found.push_back(record.reason + ".");
  return out;
}

SymptomFindings check_launcher(const home::Home& home) {
  SymptomFindings out;
  const auto os = platform::current_os();
  if (os != platform::Os::windows) {
    out.found.push_back("zluda.exe is ZLUDA's Windows launcher; on Linux ZLUDA is loaded through LD_LIBRARY_PATH (`zcuda run` sets it).");
    return out;
  }
  auto installed = launch::installed_runtime(home, os);
  if (!installed) {
    out.found.push_back(fmt::format("The installed runtime could not be read: {}", installed.error().message));
    return out;
  }
  if (!*installed) {
    out.found.push_back(
        "No ZLUDA runtime is installed by zcuda, so there is no zluda.exe of its to check (an application's own ZLUDA folder is not looked at).");
    return out;
  }
  const auto& runtime = **installed;
  const fs::path launcher = runtime.dir / "zluda.exe";
  out.found.push_back(fmt::format("The installed runtime {} at {}: {}.", runtime.version, runtime.dir, family::summary(runtime.family)));
  const auto quarantined = launch::quarantined_files(home);
  if (!quarantined.empty()) {
    out.fits = true;
    out.found.push_back(launch::quarantine_message(quarantined));
  }
  std::error_code ec;
  if (!fs::is_regular_file(launcher, ec)) {
    out.fits = true;
    out.found.push_back(fmt::format("{} is missing: nothing can be launched through it.", launcher));
    return out;
  }
  auto digest = sha256_file(launcher);
  if (!digest) {
    out.found.push_back(fmt::format("{} could not be read: {}", launcher, digest.error().message));
    return out;
  }
  const auto& known = family::known_files();
  auto it = std::find_if(known.begin(), known.end(), [&](const family::KnownFile& k) { return k.sha256 == *digest; });
  std::set<std::string> releases;
  for (const auto& k : known) releases.insert(fmt::format("{} {}", family::to_string(k.family), k.release));
  if (it != known.end()) {
    out.found.push_back(
        fmt::format("{} (SHA-256 {}) is {} of {} release {}.", launcher, *digest, it->name, family::to_string(it->family), it->release));
    if (it->name != "zluda.exe") out.fits = true;
  } else {
    out.found.push_back(
        fmt::format("{} (SHA-256 {}) is not a file of a release zcuda knows the digests of ({}): it may be another build, or damaged.", launcher,
                    *digest, fmt::join(releases, ", ")));
  }
  if (runtime.family.has_32bit) {
    out.found.push_back(fmt::format("A 32-bit program goes through {}.", runtime.dir / "32" / "zluda.exe"));
  } else {
    out.found.push_back(
        "This runtime has no 32 folder: a 32-bit program cannot be launched through it (upstream releases from v7-preview.3 on have one).");
  }
  return out;
}

}  // namespace

Result<std::vector<Symptom>> parse_symptoms(std::string_view json_text) {
  const json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return fail(ErrorKind::invalid_input, "The symptoms file is not a JSON object");
  if (!doc.contains("format") || doc.at("format") != 1) return fail(ErrorKind::invalid_input, "The symptoms file's \"format\" must be 1");
  if (!doc.contains("symptoms") || !doc.at("symptoms").is_array() || doc.at("symptoms").empty()) {
    return fail(ErrorKind::invalid_input, "The symptoms file has no \"symptoms\" list");
  }
  std::vector<Symptom> out;
  std::set<std::string> ids;
  std::size_t index = 0;
  for (const auto& s : doc.at("symptoms")) {
    std::string where = fmt::format("symptoms[{}]", index++);
    if (!s.is_object()) return fail(ErrorKind::invalid_input, where + " is not an object");
    Symptom symptom;
    for (auto [name, target] : {std::pair{"id", &symptom.id},
                                {"title", &symptom.title},
                                {"seen", &symptom.seen},
                                {"cause", &symptom.cause},
                                {"fix", &symptom.fix},
                                {"source", &symptom.source}}) {
      if (!s.contains(name) || !s.at(name).is_string() || s.at(name).get<std::string>().empty()) {
        return fail(ErrorKind::invalid_input, fmt::format("{}: \"{}\" must be a non-empty string", where, name));
      }
      *target = s.at(name).get<std::string>();
    }
    where += " (" + symptom.id + ")";
    if (symptom.id == "list" ||
        !std::all_of(symptom.id.begin(), symptom.id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; })) {
      return fail(ErrorKind::invalid_input, where + ": the id must be kebab-case (and not \"list\")");
    }
    if (!ids.insert(symptom.id).second) return fail(ErrorKind::invalid_input, where + ": the id is used twice");
    if (!public_sources(symptom.source))
      return fail(ErrorKind::invalid_input, where + ": every source must be a public https:// address (separated by \"; \")");
    const std::string check = s.value("check", "");
    bool known = false;
    for (auto c : {SymptomCheck::compute_cache, SymptomCheck::physx_install, SymptomCheck::launcher}) {
      if (to_string(c) == check) {
        symptom.check = c;
        known = true;
      }
    }
    if (!known) return fail(ErrorKind::invalid_input, fmt::format("{}: unknown check \"{}\" (compute_cache, physx_install, launcher)", where, check));
    out.push_back(std::move(symptom));
  }
  return out;
}

Result<const std::vector<Symptom>*> builtin_symptoms() {
  static const Result<std::vector<Symptom>> symptoms = [] {
    const auto text = knowledge::find("symptoms.json");
    if (!text) return Result<std::vector<Symptom>>(fail(ErrorKind::internal, "symptoms.json is not compiled into zcuda"));
    auto parsed = parse_symptoms(*text);
    if (!parsed) return Result<std::vector<Symptom>>(fail(ErrorKind::internal, "The built-in symptoms are broken: " + parsed.error().message));
    return parsed;
  }();
  if (!symptoms) return std::unexpected(symptoms.error());
  return &*symptoms;
}

SymptomReport check_symptom(const Symptom& symptom, const home::Home& home) {
  SymptomReport report;
  report.symptom = &symptom;
  switch (symptom.check) {
    case SymptomCheck::compute_cache:
      report.findings = check_compute_cache(home);
      break;
    case SymptomCheck::physx_install:
      report.findings = check_physx();
      break;
    case SymptomCheck::launcher:
      report.findings = check_launcher(home);
      break;
  }
  return report;
}

json to_json(const SymptomReport& r) {
  const Symptom& s = *r.symptom;
  return {{"id", s.id},
          {"title", s.title},
          {"seen", s.seen},
          {"cause", s.cause},
          {"fix", s.fix},
          {"source", s.source},
          {"check", std::string(to_string(s.check))},
          {"fits", r.findings.fits ? json(*r.findings.fits) : json(nullptr)},
          {"machine", r.findings.found}};
}

std::string render_text(const SymptomReport& r) {
  const Symptom& s = *r.symptom;
  std::string out = fmt::format("{} [{}]\n", s.title, s.id);
  out += fmt::format("  seen:    {}\n", s.seen);
  out += fmt::format("  cause:   {}\n", s.cause);
  out += fmt::format("  fix:     {}\n", s.fix);
  for (const auto& f : r.findings.found) out += fmt::format("  machine: {}\n", f);
  out += fmt::format("  verdict: {}\n", !r.findings.fits   ? "this machine does not tell whether this is the cause here"
                                        : *r.findings.fits ? "this machine shows the cause above"
                                                           : "this machine does not show the cause above; look further (zcuda report --bundle)");
  out += fmt::format("  source:  {}\n", s.source);
  return out;
}

}  // namespace zcuda::explain
