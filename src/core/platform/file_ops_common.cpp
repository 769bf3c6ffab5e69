#include <zcuda/platform/file_ops.hpp>

#include <zcuda/base/enum_words.hpp>

namespace zcuda::platform {

std::string_view to_string(PlaceMethod method) { return method == PlaceMethod::hard_link ? "hardlink" : "copy"; }

std::optional<PlaceMethod> place_method_from(std::string_view word) { return enum_from_word(word, {PlaceMethod::hard_link, PlaceMethod::copy}); }

}  // namespace zcuda::platform
