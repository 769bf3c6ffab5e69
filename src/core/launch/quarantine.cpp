// Runtime files that an antivirus most likely quarantined (missing or emptied since install).
#include <zcuda/launch/quarantine.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/install/receipt.hpp>

namespace zcuda::launch {

std::vector<std::string> quarantined_files(const RuntimeLocation& runtime, const home::Home& home) {
  if (runtime.chosen_by != RuntimeChoice::installed || !runtime.version) return {};
  return install::quarantine_suspects(home, "zluda", *runtime.version);
}

// By the pointer, not locate_runtime: a quarantined nvcuda.dll makes the runtime unlocatable.
std::vector<std::string> quarantined_files(const home::Home& home) { return install::quarantine_suspects_of_current(home, "zluda"); }

std::string quarantine_message(const std::vector<std::string>& files) {
  return fmt::format("{} of the installed ZLUDA runtime {} missing or empty since install, most likely quarantined by an antivirus: {}", files.size(),
                     files.size() == 1 ? "file is" : "files are", fmt::join(files, ", "));
}

std::string quarantine_advice(const home::Home& home) {
  return fmt::format(
      "Restore the files from the antivirus quarantine and add {} to its exclusions (ZLUDA's launcher injects DLLs, which "
      "heuristics flag as Wacatac/Wacapew), then run `zcuda install` to put back anything still missing.",
      home.root);
}

std::optional<detect::Finding> quarantine_finding(const home::Home& home) {
  const auto files = quarantined_files(home);
  if (files.empty()) return std::nullopt;
  return detect::Finding{detect::Severity::warning, kQuarantineFinding, quarantine_message(files), quarantine_advice(home)};
}

}  // namespace zcuda::launch
