#pragma once
// JSON as text, for output and for files. Text from outside (a child program's output, a name in
// a legacy code page) need not be valid UTF-8; nlohmann::json would throw on it, ending zcuda, so
// such bytes are written as U+FFFD instead.
#include <string>

#include <nlohmann/json.hpp>

namespace zcuda {

inline std::string json_text(const nlohmann::json& value, int indent = 2) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace zcuda
