#pragma once
#include <string_view>

namespace zcuda {

std::string_view version();     // e.g. "0.1.0"
std::string_view build_info();  // compiler, build type and target, for reports

}  // namespace zcuda
