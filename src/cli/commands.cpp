#include "command.hpp"

namespace zcuda::cli {

// One declaration per subcommand file.
CommandRun setup_install(CLI::App& sub);

// Only commands that work are registered here.
const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> table = {
      {"install", "Download, verify and install the pinned ZLUDA (and optionally LibTorch)", setup_install},
  };
  return table;
}

Status require_home(const Context& context) {
  if (context.home_usable) return {};
  return fail(ErrorKind::io, "The zcuda home folder " + context.home.root.string() + " could not be created",
              "Pass --home DIR or set ZCUDA_HOME to a folder you can write.");
}

}  // namespace zcuda::cli
