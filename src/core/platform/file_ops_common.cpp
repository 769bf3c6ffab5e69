#include <zcuda/platform/file_ops.hpp>

namespace zcuda::platform {

std::string_view to_string(PlaceMethod method) { return method == PlaceMethod::hard_link ? "hardlink" : "copy"; }

std::optional<PlaceMethod> place_method_from(std::string_view word) {
  for (auto method : {PlaceMethod::hard_link, PlaceMethod::copy}) {
    if (to_string(method) == word) return method;
  }
  return std::nullopt;
}

}  // namespace zcuda::platform
