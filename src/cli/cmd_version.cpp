// zcuda version: zcuda's version and build, and the knowledge bundle in use (docs/knowledge.md).
#include <fmt/format.h>

#include <zcuda/base/version.hpp>
#include <zcuda/manifest/embedded.hpp>
#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"

namespace zcuda::cli {

std::string version_line(const std::optional<std::filesystem::path>& home_flag) {
  if (auto home = home::resolve_home(home_flag)) knowledge::set_folder(home->root / "knowledge");
  return fmt::format("zcuda {} ({}; knowledge {})", version(), build_info(), knowledge::version_for_display());
}

CommandRun setup_version(CLI::App&) {
  return [](Context&) -> Result<CommandOutput> {
    const auto& bundle = knowledge::active();
    CommandOutput out;
    out.json = {{"version", version()},
                {"build", build_info()},
                {"knowledge", knowledge::to_json(bundle)},
                {"knowledge_compiled_in", knowledge::compiled_in_version()},
                {"knowledge_compiled_in_signed", embedded::find(knowledge::kSignatureName).has_value()}};
    out.text = fmt::format("zcuda {} ({})\nknowledge bundle {} ({}), expires {}{}\n", version(), build_info(), bundle.index.version,
                           bundle.compiled_in ? "compiled in" : "installed", knowledge::format_time(bundle.index.expires),
                           bundle.expired ? " (expired)" : "");
    for (const auto& w : bundle.warnings) out.text += "warning: " + w + "\n";
    return out;
  };
}

}  // namespace zcuda::cli
