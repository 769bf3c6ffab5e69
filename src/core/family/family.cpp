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

}  // namespace zcuda::family
