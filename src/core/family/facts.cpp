// The per-family facts and known release files, read once from the embedded
// manifests/runtime-families.json. A malformed table is a bug in zcuda's own data (the family
// tests parse it), so a bad entry is skipped rather than failing every launch.

#include <zcuda/base/whole_number.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/manifest/knowledge.hpp>

namespace zcuda::family {

namespace {

nlohmann::json table() {
  auto parsed = knowledge::parsed("runtime-families.json");
  return !parsed || parsed->is_discarded() ? nlohmann::json::object() : std::move(*parsed);
}

const nlohmann::json& data() {
  static const nlohmann::json parsed = table();
  return parsed;
}

template <class T>
T field(const nlohmann::json& entry, const char* name) {
  auto it = entry.find(name);
  if (it == entry.end()) return T{};
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return T{};
  }
}

}  // namespace

namespace {

// The table's entries as Facts, read once: a launch asks for a family's facts per runtime file.
const std::vector<Facts>& all_facts() {
  static const std::vector<Facts> parsed = [] {
    std::vector<Facts> out;
    const auto families = data().find("families");
    if (families == data().end() || !families->is_array()) return out;
    for (const auto& entry : *families) {
      const auto family = family_from_word(field<std::string>(entry, "family"));
      if (!family || *family == Family::unknown) continue;
      Facts f;
      f.family = *family;
      f.project = field<std::string>(entry, "project");
      f.default_cc = field<std::string>(entry, "default_cc");
      f.older_default_cc = field<std::string>(entry, "older_default_cc");
      f.older_default_cc_before = field<std::string>(entry, "older_default_cc_before");
      f.cc_variables = field<std::vector<std::string>>(entry, "cc_variables");
      f.cc_variables_since = field<std::string>(entry, "cc_variables_since");
      f.variables = field<std::vector<std::string>>(entry, "variables");
      f.launch_windows = field<std::string>(entry, "launch_windows");
      f.launch_linux = field<std::string>(entry, "launch_linux");
      f.launcher_sets = field<std::vector<std::string>>(entry, "launcher_sets");
      f.serves = field<std::vector<std::string>>(entry, "serves");
      f.only_names = field<std::vector<std::string>>(entry, "only_names");
      f.app_copies = field<std::map<std::string, std::string>>(entry, "app_copies");
      f.release_commits = field<std::map<std::string, std::string>>(entry, "release_commits");
      out.push_back(std::move(f));
    }
    return out;
  }();
  return parsed;
}

}  // namespace

std::optional<Facts> facts(Family family) {
  for (const auto& f : all_facts()) {
    if (f.family == family) return f;
  }
  return std::nullopt;
}

namespace {

// "v6" -> (6, none), "v7-preview.10" -> (7, 10); a release without a preview number comes after
// every preview of its major version (v6 is v6-preview.79's commit, tagged as the release).
std::optional<std::pair<int, std::optional<int>>> upstream_release_number(std::string_view name) {
  if (!name.starts_with('v')) return std::nullopt;
  name.remove_prefix(1);
  const auto dash = name.find('-');
  const auto major = whole_number<int>(name.substr(0, dash));
  if (!major) return std::nullopt;
  if (dash == std::string_view::npos) return std::pair{*major, std::optional<int>()};
  constexpr std::string_view kPreview = "-preview.";
  const std::string_view rest = name.substr(dash);
  if (!rest.starts_with(kPreview)) return std::nullopt;
  const auto number = whole_number<int>(rest.substr(kPreview.size()));
  if (!number) return std::nullopt;
  return std::pair{*major, number};
}

}  // namespace

bool release_before(std::string_view release, std::string_view bound) {
  const auto a = upstream_release_number(release), b = upstream_release_number(bound);
  if (!a || !b) return false;
  if (a->first != b->first) return a->first < b->first;
  if (!a->second || !b->second) return a->second.has_value() && !b->second.has_value();
  return *a->second < *b->second;
}

std::string default_cc(const Facts& facts, const std::optional<std::string>& release) {
  if (release && !facts.older_default_cc.empty() && release_before(*release, facts.older_default_cc_before)) return facts.older_default_cc;
  return facts.default_cc;
}

std::vector<std::string> cc_variables_read(const Facts& facts, const std::optional<std::string>& release) {
  if (release && !facts.cc_variables_since.empty() && release_before(*release, facts.cc_variables_since)) return {};
  return facts.cc_variables;
}

std::optional<std::pair<int, int>> parse_cc(std::string_view text) {
  const auto dot = text.find('.');
  const std::string_view major_text = text.substr(0, dot);
  std::string_view minor_text = dot == std::string_view::npos ? std::string_view("0") : text.substr(dot + 1);
  minor_text = minor_text.substr(0, minor_text.find('.'));
  const auto major = whole_number<int>(major_text), minor = whole_number<int>(minor_text);
  const auto fits = [](const std::optional<int>& n) { return n && *n >= 0 && *n < 100; };
  if (!fits(major) || !fits(minor)) return std::nullopt;
  return std::pair{*major, *minor};
}

nlohmann::json to_json(const Facts& f) {
  return {{"family", to_string(f.family)},
          {"project", f.project},
          {"default_cc", f.default_cc},
          {"cc_variables", f.cc_variables},
          {"cc_variables_since", f.cc_variables_since.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.cc_variables_since)},
          {"variables", f.variables},
          {"launch_windows", f.launch_windows},
          {"launch_linux", f.launch_linux},
          {"launcher_sets", f.launcher_sets},
          {"serves", f.serves},
          {"app_copies", f.app_copies}};
}

const std::vector<KnownFile>& known_files() {
  static const std::vector<KnownFile> files = [] {
    std::vector<KnownFile> out;
    const auto entries = data().find("known_files");
    if (entries == data().end() || !entries->is_array()) return out;
    for (const auto& entry : *entries) {
      auto family = family_from_word(field<std::string>(entry, "family"));
      if (!family) continue;
      out.push_back({*family, field<std::string>(entry, "release"), field<std::string>(entry, "name"), field<std::uint64_t>(entry, "size"),
                     field<std::string>(entry, "sha256")});
    }
    return out;
  }();
  return files;
}

}  // namespace zcuda::family
