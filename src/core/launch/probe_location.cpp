#include <zcuda/launch/probe_location.hpp>

#include <system_error>

#include <zcuda/base/path_text.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/runtime_launch.hpp>
#include <zcuda/platform/test_hooks.hpp>

namespace zcuda::launch {

Result<std::filesystem::path> find_probe() {
  if (auto named = platform::test_hooks::probe_override()) {
    std::error_code ec;
    const auto probe = path_from_utf8(*named);
    if (!std::filesystem::is_regular_file(probe, ec)) {
      return fail(ErrorKind::not_found, "The zcuda-probe the test hook names does not exist: " + *named,
                  "Unset the test hook's variable (docs/cli.md, \"Test hooks\") to use the zcuda-probe beside zcuda.");
    }
    return probe;
  }
  auto self = platform::current_executable();
  if (!self) return std::unexpected(self.error());
  auto probe = self->parent_path() / (platform::current_os() == platform::Os::windows ? "zcuda-probe.exe" : "zcuda-probe");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(probe, ec)) {
    return fail(ErrorKind::not_found, "zcuda-probe was not found beside zcuda (" + path_to_utf8(probe) + ")",
                "Reinstall zcuda: zcuda-probe ships in the same folder.");
  }
  return probe;
}

}  // namespace zcuda::launch
