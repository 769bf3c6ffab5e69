// What a new knowledge bundle changes, in the terms a user knows: pins, failure entries, profiles.
#include <map>

#include <nlohmann/json.hpp>

#include <zcuda/base/path_text.hpp>
#include <zcuda/knowledge/update.hpp>

namespace zcuda::knowledge {

namespace {

struct Listed {
  std::string_view file;
  std::string_view array;  // the member that holds the entries
  std::string_view key;    // the member that names an entry
  std::string_view kind;
};

constexpr Listed kListed[] = {
    {"artifacts.json", "artifacts", "id", "pin"},
    {"known-failures.json", "entries", "id", "failure"},
    {"app-profiles.json", "profiles", "name", "profile"},
    {"symptoms.json", "symptoms", "id", "symptom"},
    {"runtime-families.json", "families", "family", "family"},
};

std::map<std::string, nlohmann::json> entries_of(const std::optional<std::string>& text, const Listed& listed) {
  std::map<std::string, nlohmann::json> out;
  if (!text) return out;
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains(listed.array) || !doc[listed.array].is_array()) return out;
  for (const auto& entry : doc[listed.array]) {
    if (entry.is_object() && entry.contains(listed.key) && entry[listed.key].is_string()) out[entry[listed.key].get<std::string>()] = entry;
  }
  return out;
}

}  // namespace

std::vector<Change> diff_files(const std::function<std::optional<std::string>(std::string_view)>& before,
                               const std::function<std::optional<std::string>(std::string_view)>& after, const std::vector<std::string>& names) {
  std::vector<Change> changes;
  for (const auto& name : names) {
    const auto old_text = before(name), new_text = after(name);
    if (old_text == new_text) continue;
    const Listed* listed = nullptr;
    for (const auto& l : kListed) {
      if (l.file == name) listed = &l;
    }
    if (listed == nullptr) {
      changes.push_back({"file", !old_text ? "added" : !new_text ? "removed" : "changed", name});
      continue;
    }
    const auto old_entries = entries_of(old_text, *listed), new_entries = entries_of(new_text, *listed);
    const auto count = changes.size();
    for (const auto& [id, entry] : new_entries) {
      const auto it = old_entries.find(id);
      if (it == old_entries.end()) {
        changes.push_back({std::string(listed->kind), "added", id});
      } else if (it->second != entry) {
        changes.push_back({std::string(listed->kind), "changed", id});
      }
    }
    for (const auto& [id, entry] : old_entries) {
      if (!new_entries.contains(id)) changes.push_back({std::string(listed->kind), "removed", id});
    }
    // Only the file's other members changed (its notes): still say so.
    if (changes.size() == count) changes.push_back({"file", "changed", name});
  }
  return changes;
}

nlohmann::json to_json(const UpdateResult& result) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : result.changes) changes.push_back({{"kind", c.kind}, {"action", c.action}, {"id", c.id}});
  return {{"from_version", result.from_version},
          {"to_version", result.to_version},
          {"up_to_date", result.up_to_date},
          {"installed", result.installed},
          {"location", result.location.empty() ? nlohmann::json(nullptr) : nlohmann::json(path_to_utf8(result.location))},
          {"changes", changes}};
}

}  // namespace zcuda::knowledge
