#include "echo_argv.hpp"

namespace zcuda::probe::os {

std::vector<std::string> arguments(int argc, char** argv) { return std::vector<std::string>(argv + 1, argv + argc); }

}  // namespace zcuda::probe::os
