// zcuda-probe: runs numerical checks of the CUDA stack it finds and prints one JSON object per
// check. `zcuda verify` starts it per check, or per group of checks that load the same libraries,
// so a crash or a hang costs only that check (the runner re-runs what a crashed process left).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks.hpp"
#include "echo_argv.hpp"
#include "watchdog.hpp"

namespace {

using namespace zcuda::probe;

constexpr const char* kUsage =
    "usage: zcuda-probe --check NAME [--check NAME]... [--watchdog SECONDS]\n"
    "                              run the checks in order, print one JSON object per check;\n"
    "                              stop after a check that fails or errs (its context may be damaged)\n"
    "       zcuda-probe --list     list the checks as JSON\n"
    "       zcuda-probe --plan     the default schedule: one line per process, exclusive ones first\n"
    "With ZCUDA_PROBE_ECHO_ARGV=1 in the environment it only prints {\"echo_argv\":[ARGS...]} (how zcuda\n"
    "learns what a launcher passes on).\n"
    "Exit code 0 when the results were printed (whatever their status), 2 on a usage error,\n"
    "124 when --watchdog ended a check that gave no result in time.\n";

int list_checks() {
  json::Array checks;
  for (const auto& c : all_checks()) {
    json::Object o;
    o.str("name", c.name).boolean("core", c.core).str("group", c.group).boolean("exclusive", c.exclusive).str("summary", c.summary);
    checks.raw(o.text());
  }
  json::Object out;
  out.integer("probe_schema", 1).raw("checks", checks.text());
  std::printf("%s\n", out.text().c_str());
  return 0;
}

// Mirrors zcuda verify's default schedule (src/core/verify/schedule.cpp; a test holds them equal):
// the exclusive checks one by one, then one process per group, largest first.
int print_plan() {
  std::vector<std::vector<std::string>> units;
  std::vector<std::string> groups;
  for (const auto& c : all_checks()) {
    if (c.exclusive) {
      std::printf("exclusive %s\n", c.name);
      continue;
    }
    const std::string group = c.group;
    const auto known = std::find(groups.begin(), groups.end(), group);
    if (group.empty() || known == groups.end()) {
      units.push_back({c.name});
      groups.push_back(group.empty() ? std::string("\n") + c.name : group);  // ungrouped: a unit of its own
    } else {
      units[static_cast<std::size_t>(known - groups.begin())].push_back(c.name);
    }
  }
  std::stable_sort(units.begin(), units.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& unit : units) {
    std::string line = "shared";
    for (const auto& name : unit) line += " " + name;
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

Status run_check(const CheckInfo& info, Watchdog* watchdog) {
  Report report;
  report.check = info.name;
  if (watchdog) watchdog->begin(info.name);
  const auto start = std::chrono::steady_clock::now();
  try {
    info.run(report);
  } catch (const Stop& stop) {
    report.status = stop.status;
    report.detail = stop.detail;
    report.error = stop.error;
  } catch (const std::exception& e) {
    report.status = Status::error;
    report.detail = std::string("the probe failed: ") + e.what();
  }
  if (watchdog) watchdog->end();
  // Printed and flushed at once, so the result survives a crash later (another check, or
  // library teardown at exit).
  std::printf("%s\n", report.to_json(seconds_since(start)).c_str());
  std::fflush(stdout);
  return report.status;
}

}  // namespace

int main(int argc, char** argv) {
  if (echo_argv_requested()) return echo_argv(argc, argv);
  std::vector<const CheckInfo*> selected;
  double watchdog_seconds = 0;
  bool list = false, plan = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--list") {
      list = true;
    } else if (arg == "--plan") {
      plan = true;
    } else if (arg == "--check" && i + 1 < argc) {
      const auto* info = find_check(argv[++i]);
      if (info == nullptr) {
        std::fprintf(stderr, "zcuda-probe: unknown check '%s' (see --list)\n", argv[i]);
        return 2;
      }
      selected.push_back(info);
    } else if (arg == "--watchdog" && i + 1 < argc) {
      char* end = nullptr;
      watchdog_seconds = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(watchdog_seconds > 0)) {
        std::fprintf(stderr, "zcuda-probe: --watchdog needs a positive number of seconds, not '%s'\n", argv[i]);
        return 2;
      }
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (static_cast<int>(list) + static_cast<int>(plan) + static_cast<int>(!selected.empty()) != 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (list) return list_checks();
  if (plan) return print_plan();

  std::optional<Watchdog> watchdog;
  if (watchdog_seconds > 0) watchdog.emplace(watchdog_seconds);
  for (const auto* info : selected) {
    const Status status = run_check(*info, watchdog ? &*watchdog : nullptr);
    // A wrong answer or a failed call may leave the context unusable (CUDA errors are sticky):
    // the runner starts the rest in a fresh process, so each keeps the isolation it had alone.
    if (status == Status::fail || status == Status::error) break;
  }
  return 0;
}
