// Gathers the report: system, detect profile, installs with an integrity check, the last verify
// results, recent runs and an allowlist of environment variables. Receipts, verify results and
// run records are read through their writers' own JSON forms.
#include <zcuda/base/ascii.hpp>
#include <zcuda/report/report.hpp>

#include <zcuda/bench/record.hpp>

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/base/version.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/launch/run_record.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/system_info.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/verify/verify.hpp>

#include "app_checks.hpp"

namespace zcuda::report {

namespace fs = std::filesystem;

namespace {

bool allowed_variable(const std::string& name) {
  static const char* prefixes[] = {"HIP_", "ROCR_", "ROCBLAS_", "HIPBLASLT_", "ZLUDA_", "TORCH_", "HSA_", "MIOPEN_", "CUDA_"};
  static const std::set<std::string> exact = {"CUDA_PATH", "AMD_LOG_LEVEL",        "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
                                              "ROCM_PATH", "DISABLE_ADDMM_CUDA_LT"};
  if (exact.count(name)) return true;
  return std::any_of(std::begin(prefixes), std::end(prefixes), [&](const char* p) { return name.rfind(p, 0) == 0; });
}

// Entries of PATH-like lists that decide which GPU libraries load.
bool library_relevant(std::string_view text) {
  const std::string folder = ascii_lower(text);
  static const char* words[] = {"cuda", "rocm", "hip", "zluda", "nvidia", "amd", "torch", "cudnn"};
  return std::any_of(std::begin(words), std::end(words), [&](const char* w) { return folder.find(w) != std::string::npos; });
}

// A variable whose name says it holds a secret has its whole value redacted.
bool secret_name(std::string_view text) {
  const std::string name = ascii_upper(text);
  static const char* words[] = {"PASSWORD", "PASSWD", "TOKEN", "SECRET", "KEY", "AUTH", "CREDENTIAL", "COOKIE", "SESSION"};
  return std::any_of(std::begin(words), std::end(words), [&](const char* w) { return name.find(w) != std::string::npos; });
}

nlohmann::json environment_section(const platform::Environment& env, bool redact) {
  nlohmann::json variables = nlohmann::json::object();
  nlohmann::json lists = nlohmann::json::object();
  const char sep = platform::path_list_separator();
  for (const auto& [name, value] : env) {
    if (allowed_variable(name)) variables[name] = redact && secret_name(name) ? std::string("<redacted>") : value;
    if (name == "PATH" || name == "Path" || name == "LD_LIBRARY_PATH" || name == "LD_AUDIT") {
      nlohmann::json entries = nlohmann::json::array();
      std::size_t start = 0;
      while (start <= value.size()) {
        auto end = value.find(sep, start);
        std::string entry = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
        // LD_LIBRARY_PATH and LD_AUDIT matter whole; of PATH only the library-relevant entries.
        if (!entry.empty() && (name.rfind("LD_", 0) == 0 || library_relevant(entry))) entries.push_back(entry);
        if (end == std::string::npos) break;
        start = end + 1;
      }
      lists[name] = entries;
    }
  }
  return {{"variables", variables}, {"library_paths", lists}};
}

nlohmann::json installs_section(const CollectOptions& options) {
  nlohmann::json components = nlohmann::json::array();
  fs::path base = options.home.installs();
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory()) continue;
    const std::string name = path_to_utf8(it->path().filename());
    nlohmann::json component = {{"component", name}};
    auto current = platform::read_file(it->path() / "current", 4096);
    std::string version = current ? std::string(current->substr(0, current->find_first_of("\r\n"))) : std::string();
    component["current"] = version.empty() ? nlohmann::json(nullptr) : nlohmann::json(version);
    // Which ZLUDA the runtime `zcuda run` uses is (its digests from the receipt); null when it cannot be located.
    if (name == "zluda") {
      auto runtime = launch::installed_runtime(options.home, platform::current_os());
      component["runtime_family"] = runtime && *runtime ? family::to_json((*runtime)->family) : nlohmann::json(nullptr);
    }
    auto receipt = version.empty() ? std::nullopt : install::read_receipt(options.home, name, version);
    if (!receipt) {
      component["receipt"] = nullptr;
      component["integrity"] = version.empty() ? "no current version" : "no receipt";
      components.push_back(component);
      continue;
    }
    component["artifact"] = {{"id", receipt->id},         {"version", receipt->version},
                             {"sha256", receipt->sha256}, {"url", receipt->entry.value("url", "")},
                             {"source", receipt->source}, {"installed_at", receipt->installed_at}};
    std::size_t checked = 0, missing = 0, changed = 0;
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& file : receipt->files) {
      if (file.type != archive::WrittenEntry::Type::file) continue;  // folders and links carry no digest
      fs::path path = it->path() / path_from_utf8(version) / path_from_utf8(file.path);
      ++checked;
      std::error_code fec;
      auto size = fs::file_size(path, fec);
      if (fec) {
        ++missing;
        if (problems.size() < 20) problems.push_back({{"path", file.path}, {"problem", "missing"}});
        continue;
      }
      bool differs = file.size != size;
      if (!differs && options.hash_installed_files) {
        auto digest = sha256_file(path);
        differs = !digest || *digest != file.sha256;
      }
      if (differs) {
        ++changed;
        if (problems.size() < 20) problems.push_back({{"path", file.path}, {"problem", "changed"}});
      }
    }
    component["integrity"] = missing + changed == 0 ? "ok" : "damaged";
    component["files_checked"] = checked;
    component["files_missing"] = missing;
    component["files_changed"] = changed;
    component["problems"] = problems;
    components.push_back(component);
  }
  return components;
}

// The last verify results as verify wrote them; an object with `error` when they cannot be read.
nlohmann::json verify_section(const CollectOptions& options) {
  auto last = verify::load_last(options.home);
  if (!last) return {{"error", last.error().message}};
  return *last ? nlohmann::json(**last) : nlohmann::json(nullptr);
}

nlohmann::json runs_section(const CollectOptions& options) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& record : launch::recent_run_records(options.home, options.max_runs)) runs.push_back(record);
  return runs;
}

// The latest bench records, each as `zcuda bench` wrote it (read and rewritten through the
// record's own from_json/to_json, so the report holds exactly the record's fields).
nlohmann::json bench_section(const CollectOptions& options) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& stored : bench::read_bench_records(options.home, options.max_benches)) out.push_back(bench::to_json(stored.record));
  return out;
}

}  // namespace

Redactor redactor_for(const CollectOptions& options) {
  return options.redact ? Redactor::for_machine(platform::system_info(), options.environment) : Redactor::disabled();
}

Result<nlohmann::json> collect(const CollectOptions& options) {
  platform::SystemInfo system = platform::system_info();
  nlohmann::json report;
  report["schema"] = kReportSchema;
  report["generated_utc"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
  report["zcuda"] = {{"version", std::string(version())}, {"build", std::string(build_info())}};
  // Which knowledge explained this machine; "installed" rather than its folder, which names the user.
  report["knowledge"] = knowledge::to_json(knowledge::active());
  report["knowledge"]["source"] = knowledge::active().compiled_in ? "compiled-in" : "installed";
  report["system"] = {{"os", platform::os_id(platform::current_os())},
                      {"os_name", system.os_name},
                      {"os_version", system.os_version},
                      {"architecture", system.architecture},
                      {"cpu", system.cpu},
                      {"ram_bytes", system.ram_bytes ? nlohmann::json(*system.ram_bytes) : nlohmann::json(nullptr)}};

  detect::Options detect_options;
  detect_options.environment = options.environment;
  auto profile = detect::detect_machine(detect_options);
  if (profile) {
    report["detect"] = *profile;
  } else {
    report["detect"] = {{"error", profile.error().message}};
  }
  report["installs"] = installs_section(options);
  report["verify"] = verify_section(options);
  report["bench"] = bench_section(options);
  report["app_checks"] = app_checks_section(options);
  report["application_verified"] = options.application_verified || bench::any_output_verified(options.home) || any_app_check_passed(options);
  report["level"] = evidence_level(report);
  report["runs"] = runs_section(options);
  report["environment"] = environment_section(options.environment, options.redact);
  report["redacted"] = options.redact;

  Redactor redactor = options.redact ? Redactor::for_machine(system, options.environment) : Redactor::disabled();
  redactor.apply(report);
  return report;
}

}  // namespace zcuda::report
