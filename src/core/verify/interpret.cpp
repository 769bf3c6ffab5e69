#include <zcuda/verify/verify.hpp>

#include <fmt/format.h>

namespace zcuda::verify {
namespace {

std::string tail(const std::string& text, std::size_t max) {
  return text.size() <= max ? text : "…" + text.substr(text.size() - max);
}

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

bool known_probe_status(const std::string& s) {
  return s == "pass" || s == "fail" || s == "unsupported" || s == "missing" || s == "error";
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
    r.status = parsed->value("status", "error");
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
    if (!known_probe_status(r.status)) {
      r.detail = fmt::format("the probe reported an unknown status '{}': {}", r.status, r.detail);
      r.status = "error";
    }
  }

  // How the process ended outranks what it printed: a result followed by a crash in library
  // teardown or a hang at exit is still a crash or a hang for an application.
  if (process.timed_out) {
    r.status = "timeout";
    r.detail = fmt::format("no result within {} s; the probe and its child processes were killed{}", timeout.count(),
                           parsed ? fmt::format(" (it had reported {}: {})", parsed->value("status", ""), parsed->value("detail", "")) : "");
  } else if (process.signal || process.exception_status) {
    r.status = "crash";
    r.detail = fmt::format("the probe {}{}", r.exit,
                           parsed ? fmt::format(" after reporting {}: {}", parsed->value("status", ""), parsed->value("detail", "")) : "");
  } else if (!parsed) {
    // No result line: a library that called exit() or a runtime abort (sanitizers) ended it.
    r.status = process.exit_code == 0 ? "error" : "crash";
    r.detail = process.exit_code == 0 ? "the probe ended without printing a result"
                                      : fmt::format("the probe ended with {} without printing a result", r.exit);
  } else if (process.exit_code != 0) {
    r.status = "crash";
    r.detail = fmt::format("the probe ended with {} after reporting {}: {}", r.exit, parsed->value("status", ""), r.detail);
  }
  if (r.status != "pass") r.stderr_tail = tail(process.err, 2000);
  return r;
}

}  // namespace zcuda::verify
