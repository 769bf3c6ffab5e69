#pragma once
// An Error as JSON, one form for every place that writes one (the --json error object, an
// install outcome that failed): {"kind", "exit_code", "message", "hint", "notes"}.
#include <nlohmann/json.hpp>

#include <zcuda/base/error.hpp>

namespace zcuda {

void to_json(nlohmann::json& out, const Error& error);

}  // namespace zcuda
