#include <zcuda/stage/for_launch.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/stage/catalogue.hpp>
#include <zcuda/stage/describe.hpp>

#include "runtime_digests.hpp"

namespace zcuda::stage {

namespace fs = std::filesystem;

Result<LaunchStaging> stage_for_launch(const fs::path& program, const fs::path& runtime_dir, platform::Os os, const detect::Profile& detected) {
  LaunchStaging out;
  if (!uses_cuda_libraries(program, os)) return out;
  PlanOptions options;
  options.app = program;
  options.runtime_dir = runtime_dir;
  options.os = os;
  options.backends = backends_from_detection(detected);
  auto result = stage(options);
  if (!result) return std::unexpected(std::move(result.error()).with_note("the program was not started; --no-stage skips staging"));
  if (result->recovered) out.notices.push_back(describe(*result->recovered));
  if (result->placed > 0) {
    out.notices.push_back(fmt::format("staged {} file{} into {} (journaled; 'zcuda unstage {}' restores the folder)", result->placed,
                                      result->placed == 1 ? "" : "s", result->plan.root, result->plan.root));
  }
  for (const auto& n : result->plan.names) {
    if (n.service == Service::no_backend || n.service == Service::not_in_runtime || n.service == Service::stub) {
      out.warnings.push_back(fmt::format("{}: {}", n.name, n.note));
    }
  }
  out.result = std::move(*result);
  return out;
}

Result<std::optional<std::string>> unstage_for_native_launch(const fs::path& program) {
  auto root = app_root(program);
  if (!root) return std::unexpected(root.error());
  std::error_code ec;
  if (!fs::exists(journal_path(*root), ec)) return std::optional<std::string>();
  auto result = unstage(program, false);
  if (!result)
    return std::unexpected(std::move(result.error()).with_note("the native run was not started: the folder still holds ZLUDA's libraries"));
  if (!result->was_staged) return std::optional<std::string>();
  return std::optional<std::string>(
      fmt::format("unstaged {} for the native run (restored {} file{})", *root, result->restored, result->restored == 1 ? "" : "s"));
}

Result<std::vector<RuntimeLibrary>> runtime_libraries(const fs::path& runtime_dir, platform::Os os) {
  auto files = scan_runtime(runtime_dir, os);
  if (!files) return std::unexpected(files.error());
  detail::RuntimeDigests digests(runtime_dir);
  std::vector<RuntimeLibrary> out;
  for (const auto& file : *files) {
    auto digest = digests.digest(file.path);
    if (!digest) return std::unexpected(digest.error());
    out.push_back({file.name, *digest});
  }
  return out;
}

}  // namespace zcuda::stage
