#include <zcuda/base/error_json.hpp>

namespace zcuda {

void to_json(nlohmann::json& out, const Error& error) {
  out = {{"kind", to_string(error.kind)},
         {"exit_code", exit_code(error.kind)},
         {"message", error.message},
         {"hint", error.hint},
         {"notes", error.notes}};
}

}  // namespace zcuda
