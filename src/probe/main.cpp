// zcuda-probe: runs one numerical check of the CUDA stack it finds and prints one JSON object.
// `zcuda verify` starts it once per check, so a crash or a hang costs only that check.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "checks.hpp"

namespace {

using namespace zcuda::probe;

constexpr const char* kUsage =
    "usage: zcuda-probe --check NAME   run one check, print one JSON object on stdout\n"
    "       zcuda-probe --list         list the checks as JSON\n"
    "Exit code 0 when a result was printed (whatever its status), 2 on a usage error.\n";

int list_checks() {
  json::Array checks;
  for (const auto& c : all_checks()) {
    json::Object o;
    o.str("name", c.name).boolean("core", c.core).str("summary", c.summary);
    checks.raw(o.text());
  }
  json::Object out;
  out.integer("probe_schema", 1).raw("checks", checks.text());
  std::printf("%s\n", out.text().c_str());
  return 0;
}

int run_check(const CheckInfo& info) {
  Report report;
  report.check = info.name;
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
  // Printed and flushed before returning, so the result survives a crash in library teardown.
  std::printf("%s\n", report.to_json(seconds_since(start)).c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--list") return list_checks();
  if (argc == 3 && std::string_view(argv[1]) == "--check") {
    if (const auto* info = find_check(argv[2])) return run_check(*info);
    std::fprintf(stderr, "zcuda-probe: unknown check '%s' (see --list)\n", argv[2]);
    return 2;
  }
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fputs(kUsage, stderr);
  return 2;
}
