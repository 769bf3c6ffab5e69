// zcuda unstage: restore a staged folder byte for byte from its journal.
#include <zcuda/stage/describe.hpp>

#include "command.hpp"

namespace zcuda::cli {

CommandRun setup_unstage(CLI::App& sub) {
  struct Options {
    std::filesystem::path app;
    bool force = false;
  };
  auto options = std::make_shared<Options>();
  add_path_option(sub, "APP", options->app, "The program, or the folder, that was staged")->required();
  sub.add_flag("--force", options->force,
               "Restore originals even over staged files that changed since staging (those are kept in .zcuda-stage/kept)");
  return [options](Context& context) -> Result<CommandOutput> {
    auto result = stage::unstage(options->app, options->force);
    if (!result) return std::unexpected(result.error());
    CommandOutput output;
    output.json = stage::to_json(*result);
    output.text = stage::describe(*result, context.style);
    return output;
  };
}

}  // namespace zcuda::cli
