// The ladder's level of a report, the same words verify uses.
#include <zcuda/report/report.hpp>
#include <zcuda/verify/ladder.hpp>

namespace zcuda::report {

nlohmann::json evidence_level(const nlohmann::json& report) {
  namespace ladder = verify::ladder;
  const auto verify_result = report.value("verify", nlohmann::json(nullptr));
  const bool bench = report.value("application_verified", false);
  if (!verify_result.is_object()) return ladder::to_json({ladder::Level::none, "zcuda verify has not been run"});
  return ladder::to_json(ladder::assess(ladder::outcomes(verify_result), bench));
}

}  // namespace zcuda::report
