// Which check proves an application works: the profile's `check` decides, here and nowhere else.
#include <zcuda/apps/check.hpp>
#include <zcuda/apps/physx_check.hpp>

#include <fmt/format.h>

namespace zcuda::apps {

Status run_check(const CheckRun& run, CheckRecord& record) {
  if (!run.match) return fail(ErrorKind::internal, "run_check without an application");
  const Profile& profile = run.match->profile;
  record.check = profile.check;
  switch (profile.check) {
    case Check::torch: {
      if (!run.torch_launch) return fail(ErrorKind::internal, "the torch check has no launch");
      auto plan = run.torch_launch();
      if (!plan) return std::unexpected(plan.error());
      return run_torch_check(*plan, run.timeout, record);
    }
    case Check::fatbin:
      run_fatbin_check(*run.match, run.app, reported_cc(run.family, run.release, run.environment, run.os), run.family, record);
      return {};
    case Check::physx:
      run_physx_check(record);
      return {};
    case Check::none:
      break;
  }
  return fail(ErrorKind::unsupported, fmt::format("profile {} has no check that proves it works", profile.name),
              "docs/apps.md says how each application is checked.");
}

}  // namespace zcuda::apps
