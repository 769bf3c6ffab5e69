#include <zcuda/verify/verify.hpp>
#include <zcuda/verify/ladder.hpp>

#include <map>

#include <zcuda/core/json_text.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::verify {

std::string Report::stack() const {
  for (const auto& c : checks) {
    if (c.stack != "unknown" && !c.stack.empty()) return c.stack;
  }
  return "unknown";
}

std::string Report::device() const {
  for (const auto& c : checks) {
    if (!c.device.empty()) return c.device;
  }
  return {};
}

bool Report::passed() const {
  for (const auto& c : checks) {
    if ((c.core || explicit_selection) && c.status != "pass") return false;
  }
  return true;
}

nlohmann::json Report::level_json() const {
  return ladder::to_json(ladder::assess(ladder::outcomes(checks), application_verified));
}

nlohmann::json Report::to_json() const {
  nlohmann::json runtime_json = {{"kind", runtime.kind},
                                 {"dir", runtime.dir ? nlohmann::json(runtime.dir->string()) : nlohmann::json(nullptr)},
                                 {"chosen_by", runtime.chosen_by},
                                 {"launch", launch_method}};
  if (!runtime.version.empty()) runtime_json["version"] = runtime.version;

  nlohmann::json list = nlohmann::json::array();
  std::map<std::string, int> counts;
  for (const auto& c : checks) {
    ++counts[c.status];
    nlohmann::json libs = nlohmann::json::array();
    for (const auto& l : c.libraries) {
      libs.push_back({{"role", l.role},
                      {"requested", l.requested},
                      {"path", l.path},
                      {"real_path", l.real_path},
                      {"size", l.size ? nlohmann::json(*l.size) : nlohmann::json(nullptr)},
                      {"sha256", l.sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.sha256)}});
    }
    nlohmann::json item = {{"name", c.name},     {"core", c.core},         {"status", c.status},
                           {"detail", c.detail}, {"stack", c.stack},       {"device", c.device},
                           {"seconds", c.seconds}, {"exit", c.exit},       {"libraries", libs},
                           {"metrics", c.metrics}, {"error", c.error}};
    if (!c.stderr_tail.empty()) item["stderr"] = c.stderr_tail;
    item["shared_process"] = c.shared_process.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.shared_process);
    list.push_back(std::move(item));
  }
  nlohmann::json out = {{"started_utc", started_utc},
                        {"runtime", runtime_json},
                        {"stack", stack()},
                        {"device", device()},
                        {"probe", probe.string()},
                        {"timeout_seconds", timeout.count()},
                        {"jobs", jobs},
                        {"seconds", seconds},
                        {"checks", list},
                        {"summary",
                         {{"counted", explicit_selection ? "selected checks" : "core checks"},
                          {"passed", passed()},
                          {"statuses", counts},
                          {"level", level_json()}}}};
  if (cuda_check) {
    out["cuda_check"] = {{"label", "load-only: ZLUDA's cuda_check loads each library and creates a handle; it computes nothing"},
                         {"program", cuda_check->program.string()},
                         {"outcome", cuda_check->outcome},
                         {"lines", cuda_check->lines}};
  }
  return out;
}

Result<std::filesystem::path> save(const Report& report, const app::Home& home) {
  const auto dir = home.state / "verify";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return std::unexpected(platform::io_error("create", dir, ec));
  const auto text = json_text(report.to_json()) + "\n";
  std::string stamp;
  for (char c : report.started_utc) {
    if (c != '-' && c != ':') stamp += c;  // 2026-12-02T11:54:03Z -> 20261202T115403Z (valid on Windows)
  }
  const auto copy = dir / ("verify-" + stamp + ".json");
  if (auto written = platform::write_file_atomic(copy, text); !written) return std::unexpected(written.error());
  if (auto written = platform::write_file_atomic(dir / "last.json", text); !written) return std::unexpected(written.error());
  return copy;
}

}  // namespace zcuda::verify
