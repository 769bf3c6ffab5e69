#include <zcuda/verify/verify.hpp>
#include <zcuda/verify/ladder.hpp>

#include <map>

#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::verify {

using nlohmann::json;

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

bool Report::passed() const { return summarize(*this).passed; }

nlohmann::json Report::level_json() const { return ladder::to_json(ladder::assess(ladder::outcomes(checks), application_verified)); }

Summary summarize(const Report& report) {
  Summary s;
  s.explicit_selection = report.explicit_selection;
  for (const auto& c : report.checks) {
    if (c.core || report.explicit_selection) {
      ++s.counted;
      ++s.statuses[c.status];
      if (c.status == CheckStatus::pass)
        ++s.counted_passed;
      else
        s.passed = false;
    } else {
      ++s.others[c.status];
    }
  }
  return s;
}

namespace {

constexpr const char* kCountedCore = "core checks";
constexpr const char* kCountedSelected = "selected checks";

// {"pass": 9, "unsupported": 1}: counts by the status's word.
json status_counts(const std::map<CheckStatus, int>& counts) {
  json out = json::object();
  for (const auto& [status, count] : counts) out[std::string(to_string(status))] = count;
  return out;
}

CheckStatus status_at(const json& item) {
  const auto& value = item.at("status");
  const auto word = value.get<std::string>();
  if (auto status = check_status_from(word)) return *status;
  throw json::other_error::create(501, "status '" + word + "' is not a check status zcuda knows", &value);
}

template <class T>
std::optional<T> optional_at(const json& in, const char* key) {
  const auto& value = in.at(key);
  return value.is_null() ? std::nullopt : std::optional<T>(value.get<T>());
}

}  // namespace

void to_json(json& out, const Report& r) {
  const Summary summary = summarize(r);
  json runtime = {{"kind", std::string(to_string(r.runtime.kind))},
                  {"dir", r.runtime.dir ? json(path_to_utf8(*r.runtime.dir)) : json(nullptr)},
                  {"chosen_by", r.runtime.chosen_by},
                  {"launch", to_string(r.launch_method)}};
  if (!r.runtime.version.empty()) runtime["version"] = r.runtime.version;

  json list = json::array();
  for (const auto& c : r.checks) {
    json libs = json::array();
    for (const auto& l : c.libraries) {
      libs.push_back({{"role", l.role},
                      {"requested", l.requested},
                      {"path", l.path},
                      {"real_path", l.real_path},
                      {"size", l.size ? json(*l.size) : json(nullptr)},
                      {"sha256", l.sha256.empty() ? json(nullptr) : json(l.sha256)}});
    }
    json item = {{"name", c.name},       {"core", c.core},   {"status", to_string(c.status)},
                 {"detail", c.detail},   {"stack", c.stack}, {"device", c.device},
                 {"seconds", c.seconds}, {"exit", c.exit},   {"libraries", libs},
                 {"metrics", c.metrics}, {"error", c.error}};
    if (!c.stderr_tail.empty()) item["stderr"] = c.stderr_tail;
    item["shared_process"] = c.shared_process.empty() ? json(nullptr) : json(c.shared_process);
    list.push_back(std::move(item));
  }
  out = {{"started_utc", r.started_utc},
         {"runtime", runtime},
         {"runtime_family", r.runtime_family ? family::to_json(*r.runtime_family) : json(nullptr)},
         {"stack", r.stack()},
         {"device", r.device()},
         {"probe", path_to_utf8(r.probe)},
         {"timeout_seconds", r.timeout.count()},
         {"jobs", r.jobs},
         {"seconds", r.seconds},
         {"checks", list},
         {"summary",
          {{"counted", r.explicit_selection ? kCountedSelected : kCountedCore},
           {"passed", summary.passed},
           {"statuses", status_counts(summary.statuses)},
           {"others", status_counts(summary.others)},
           {"level", r.level_json()}}},
         {"application_verified", r.application_verified}};
  if (r.cuda_check) {
    out["cuda_check"] = {{"label", "load-only: ZLUDA's cuda_check loads each library and creates a handle; it computes nothing"},
                         {"program", path_to_utf8(r.cuda_check->program)},
                         {"outcome", r.cuda_check->outcome},
                         {"lines", r.cuda_check->lines}};
  }
}

void from_json(const json& in, Report& r) {
  r = Report{};
  r.started_utc = in.at("started_utc").get<std::string>();
  const auto& runtime = in.at("runtime");
  const auto kind_text = runtime.at("kind").get<std::string>();
  const auto kind = runtime_kind_from(kind_text);
  if (!kind) throw json::other_error::create(501, "runtime.kind '" + kind_text + "' is not zluda, dir or native", &runtime);
  r.runtime.kind = *kind;
  if (auto dir = optional_at<std::string>(runtime, "dir")) r.runtime.dir = path_from_utf8(*dir);
  r.runtime.chosen_by = runtime.at("chosen_by").get<std::string>();
  r.runtime.version = runtime.value("version", "");
  // Results written before families were named have none.
  if (in.contains("runtime_family") && in.at("runtime_family").is_object()) r.runtime_family = in.at("runtime_family").get<family::Identity>();
  const auto launch_text = runtime.at("launch").get<std::string>();
  const auto launch = platform::launch_method_from(launch_text);
  if (!launch) throw json::other_error::create(501, "runtime.launch '" + launch_text + "' is not a way zcuda puts a runtime first", &runtime);
  r.launch_method = *launch;
  r.probe = path_from_utf8(in.at("probe").get<std::string>());
  r.timeout = std::chrono::seconds(in.at("timeout_seconds").get<std::int64_t>());
  r.jobs = in.at("jobs").get<int>();
  r.seconds = in.at("seconds").get<double>();
  r.explicit_selection = in.at("summary").at("counted").get<std::string>() == kCountedSelected;
  r.application_verified = in.value("application_verified", false);
  for (const auto& item : in.at("checks")) {
    CheckResult c;
    c.name = item.at("name").get<std::string>();
    c.core = item.at("core").get<bool>();
    c.status = status_at(item);
    c.detail = item.at("detail").get<std::string>();
    c.stack = item.at("stack").get<std::string>();
    c.device = item.at("device").get<std::string>();
    c.seconds = item.at("seconds").get<double>();
    c.exit = item.at("exit").get<std::string>();
    for (const auto& lib : item.at("libraries")) {
      LibraryFile l;
      l.role = lib.at("role").get<std::string>();
      l.requested = lib.at("requested").get<std::string>();
      l.path = lib.at("path").get<std::string>();
      l.real_path = lib.at("real_path").get<std::string>();
      l.size = optional_at<std::uint64_t>(lib, "size");
      l.sha256 = optional_at<std::string>(lib, "sha256").value_or("");
      c.libraries.push_back(std::move(l));
    }
    c.metrics = item.at("metrics");
    c.error = item.at("error");
    c.stderr_tail = item.value("stderr", "");
    c.shared_process = item.contains("shared_process") && item.at("shared_process").is_string() ? item.at("shared_process").get<std::string>() : "";
    r.checks.push_back(std::move(c));
  }
  if (in.contains("cuda_check")) {
    const auto& cc = in.at("cuda_check");
    r.cuda_check = CudaCheck{path_from_utf8(cc.at("program").get<std::string>()), cc.at("outcome").get<std::string>(),
                             cc.at("lines").get<std::vector<std::string>>()};
  }
}

Result<std::filesystem::path> save(const Report& report, const home::Home& home) {
  const auto dir = home.state / "verify";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return std::unexpected(io_error("create", dir, ec));
  const auto text = json_text(json(report)) + "\n";
  std::string stamp;
  for (char c : report.started_utc) {
    if (c != '-' && c != ':') stamp += c;  // 2026-12-02T11:54:03Z -> 20261202T115403Z (valid on Windows)
  }
  const auto copy = dir / ("verify-" + stamp + ".json");
  if (auto written = platform::write_file_atomic(copy, text); !written) return std::unexpected(written.error());
  if (auto written = platform::write_file_atomic(dir / "last.json", text); !written) return std::unexpected(written.error());
  return copy;
}

Result<std::optional<Report>> load_last(const home::Home& home) {
  const auto file = home.state / "verify" / "last.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::optional<Report>();
  auto text = platform::read_file(file, 64u << 20);
  if (!text) return std::unexpected(text.error());
  auto report = parse_record_text<Report>(*text, "verify result");
  if (!report) return std::unexpected(std::move(report.error()).with_note(fmt::format("in {}", file)));
  return std::optional<Report>(std::move(*report));
}

}  // namespace zcuda::verify
