#include "support/run_command.hpp"

namespace zcuda::test {

CommandResult run_zcuda(const std::vector<std::string>& args, CommandOptions options) {
  std::vector<std::string> argv = {ZCUDA_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  options.set_env.try_emplace("NO_COLOR", "1");
  return run_command(argv, options);
}

}  // namespace zcuda::test
