#include <zcuda/base/enum_words.hpp>
#include <zcuda/family/family.hpp>

namespace zcuda::family {

std::string_view to_string(Family family) {
  switch (family) {
    case Family::upstream:
      return "upstream";
    case Family::lshqqytiger:
      return "lshqqytiger";
    case Family::unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<Family> family_from_word(std::string_view word) {
  return enum_from_word(word, {Family::upstream, Family::lshqqytiger, Family::unknown});
}

nlohmann::json to_json(const Identity& identity) {
  nlohmann::json out{{"family", to_string(identity.family)}, {"evidence", identity.evidence}, {"has_32bit", identity.has_32bit}};
  out["release"] = identity.release ? nlohmann::json(*identity.release) : nlohmann::json(nullptr);
  return out;
}

std::string summary(const Identity& identity) {
  std::string out = std::string(to_string(identity.family)) + " family";
  if (identity.release) out += ", release " + *identity.release;
  return out;
}

void from_json(const nlohmann::json& in, Identity& identity) {
  identity = Identity{};
  const auto word = in.at("family").get<std::string>();
  const auto family = family_from_word(word);
  if (!family) throw nlohmann::json::other_error::create(501, "family '" + word + "' is not upstream, lshqqytiger or unknown", &in);
  identity.family = *family;
  if (in.contains("release") && in.at("release").is_string()) identity.release = in.at("release").get<std::string>();
  identity.evidence = in.value("evidence", std::vector<std::string>{});
  identity.has_32bit = in.value("has_32bit", false);
}

}  // namespace zcuda::family
