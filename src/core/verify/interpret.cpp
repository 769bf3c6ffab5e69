#include <zcuda/verify/verify.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace zcuda::verify {
namespace {

std::string tail(const std::string& text, std::size_t max) { return text.size() <= max ? text : "…" + text.substr(text.size() - max); }

// The probe prints one JSON object on its last non-empty line (libraries may print before it).
std::optional<nlohmann::json> probe_result(const std::string& out, const std::string& name) {
  auto end = out.find_last_not_of(" \r\n");
  if (end == std::string::npos) return std::nullopt;
  const auto start = out.rfind('\n', end);
  const auto line = out.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || parsed.value("check", "") != name || !parsed.contains("status")) {
    return std::nullopt;
  }
  return parsed;
}

// crash and timeout are zcuda's to say, from how the process ended; a probe that printed them is confused.
std::optional<CheckStatus> probe_status(const std::string& word) {
  const auto status = check_status_from(word);
  if (!status || *status == CheckStatus::crash || *status == CheckStatus::timeout) return std::nullopt;
  return status;
}

// Every result line of the unit's checks, by check name (the first one for each).
std::map<std::string, std::string> result_lines(const std::string& out, const std::vector<const CheckSpec*>& unit) {
  std::map<std::string, std::string> lines;
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const auto line = out.substr(start, end - start);
    start = end + 1;
    auto parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("status") || !parsed["check"].is_string()) continue;
    const auto name = parsed["check"].get<std::string>();
    for (const auto* spec : unit) {
      if (spec->name == name && !lines.count(name)) lines[name] = line;
    }
  }
  return lines;
}

double reported_seconds(const std::string& line) {
  const auto parsed = nlohmann::json::parse(line, nullptr, false);
  return parsed.is_object() && parsed.contains("seconds") && parsed["seconds"].is_number() ? parsed["seconds"].get<double>() : 0.0;
}

}  // namespace

CheckResult interpret(const CheckSpec& spec, const platform::ProcessResult& process, std::chrono::seconds timeout) {
  CheckResult r;
  r.name = spec.name;
  r.core = spec.core;
  r.seconds = process.seconds;
  r.exit = platform::describe_exit(process);

  const auto parsed = probe_result(process.out, spec.name);
  if (parsed) {
    const auto word = parsed->value("status", "error");
    r.detail = parsed->value("detail", "");
    r.stack = parsed->value("stack", "unknown");
    r.device = parsed->value("device", "");
    if (parsed->contains("metrics") && (*parsed)["metrics"].is_object()) r.metrics = (*parsed)["metrics"];
    if (parsed->contains("error")) r.error = (*parsed)["error"];
    if (parsed->contains("libraries") && (*parsed)["libraries"].is_array()) {
      for (const auto& lib : (*parsed)["libraries"]) {
        if (!lib.is_object()) continue;
        LibraryFile f{lib.value("role", ""), lib.value("requested", ""), lib.value("path", ""), lib.value("real_path", ""), std::nullopt, ""};
        if (lib.contains("size") && lib["size"].is_number_unsigned()) f.size = lib["size"].get<std::uint64_t>();
        r.libraries.push_back(std::move(f));
      }
    }
    if (auto status = probe_status(word)) {
      r.status = *status;
    } else {
      r.detail = fmt::format("the probe reported an unknown status '{}': {}", word, r.detail);
      r.status = CheckStatus::error;
    }
  }

  // How the process ended outranks what it printed: a result followed by a crash in library
  // teardown or a hang at exit is still a crash or a hang for an application.
  if (process.timed_out) {
    r.status = CheckStatus::timeout;
    r.detail = fmt::format("no result within {} s; the probe and its child processes were killed{}", timeout.count(),
                           parsed ? fmt::format(" (it had reported {}: {})", parsed->value("status", ""), parsed->value("detail", "")) : "");
  } else if (process.signal || process.exception_status) {
    r.status = CheckStatus::crash;
    r.detail = fmt::format("the probe {}{}", r.exit,
                           parsed ? fmt::format(" after reporting {}: {}", parsed->value("status", ""), parsed->value("detail", "")) : "");
  } else if (!parsed) {
    // No result line: a library that called exit() or a runtime abort (sanitizers) ended it.
    r.status = process.exit_code == 0 ? CheckStatus::error : CheckStatus::crash;
    r.detail = process.exit_code == 0 ? "the probe ended without printing a result"
                                      : fmt::format("the probe ended with {} without printing a result", r.exit);
  } else if (process.exit_code != 0) {
    r.status = CheckStatus::crash;
    r.detail = fmt::format("the probe ended with {} after reporting {}: {}", r.exit, parsed->value("status", ""), r.detail);
  }
  if (r.status != CheckStatus::pass) r.stderr_tail = tail(process.err, 2000);
  return r;
}

UnitOutcome interpret_unit(const std::vector<const CheckSpec*>& unit, const platform::ProcessResult& process, std::chrono::seconds timeout) {
  UnitOutcome outcome;
  if (unit.empty()) return outcome;
  const std::string group = unit.front()->group;
  const auto lines = result_lines(process.out, unit);
  const bool watchdog = !process.timed_out && !process.signal && !process.exception_status && process.exit_code == kProbeWatchdogExit;
  const bool abnormal = process.timed_out || process.signal || process.exception_status || process.exit_code != 0;

  // A result line stands for itself: the process it came from ran on, so how that process ended
  // later is the business of the check that was running then.
  auto reported = [&](const CheckSpec& spec, const std::string& line, bool charge_exit) {
    platform::ProcessResult own = process;
    own.out = line;
    own.seconds = reported_seconds(line);
    if (!charge_exit) {
      own.exit_code = 0;
      own.signal.reset();
      own.exception_status.reset();
      own.timed_out = false;
    }
    auto r = interpret(spec, own, timeout);
    r.shared_process = group;
    if (charge_exit && r.status != CheckStatus::pass) {
      r.detail += fmt::format(" (in a probe process shared by {} checks, which ended after they all reported)", unit.size());
    }
    return r;
  };

  std::size_t first_missing = unit.size();
  for (std::size_t i = 0; i < unit.size(); ++i) {
    if (!lines.count(unit[i]->name)) {
      first_missing = i;
      break;
    }
  }
  if (first_missing == unit.size()) {
    // All reported. An abnormal end came after the last result (library teardown at exit): as
    // for a check alone, an application would see that crash or hang, so every check of the
    // process carries it.
    for (const auto* spec : unit) outcome.results.push_back(reported(*spec, lines.at(spec->name), abnormal));
    return outcome;
  }
  // The probe stops on purpose after a check that failed or erred: the rest start again in a
  // fresh process (and an abnormal end after that came from teardown, like above).
  const auto& last_line = first_missing > 0 ? lines.at(unit[first_missing - 1]->name) : std::string();
  const auto last_parsed = nlohmann::json::parse(last_line, nullptr, false);
  const auto last_status = probe_status(last_parsed.is_object() ? last_parsed.value("status", "") : std::string());
  const bool stopped = last_status == CheckStatus::fail || last_status == CheckStatus::error;
  double used = 0;
  for (std::size_t i = 0; i < first_missing; ++i) {
    outcome.results.push_back(reported(*unit[i], lines.at(unit[i]->name), stopped && abnormal));
    used += outcome.results.back().seconds;
  }
  if (stopped) {
    outcome.rerun_together.assign(unit.begin() + static_cast<std::ptrdiff_t>(first_missing), unit.end());
    return outcome;
  }
  const std::vector<const CheckSpec*> rest(unit.begin() + static_cast<std::ptrdiff_t>(first_missing) + 1, unit.end());
  // The check that was running when the process crashed, hung or quit is charged with it.
  platform::ProcessResult own = process;
  own.out.clear();
  own.seconds = std::max(0.0, process.seconds - used);
  if (watchdog) own.timed_out = true;
  auto culprit = interpret(*unit[first_missing], own, timeout);
  if (watchdog) {
    culprit.exit = "ended by the probe's watchdog";
    culprit.detail = fmt::format("no result within {} s; the probe ended itself and the checks after it ran in new processes", timeout.count());
  }
  culprit.shared_process = group;
  outcome.results.push_back(std::move(culprit));
  outcome.rerun_alone = rest;
  return outcome;
}

}  // namespace zcuda::verify
