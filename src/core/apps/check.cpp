// Running the torch check and keeping its record (docs/apps.md, "The torch check").
#include <zcuda/apps/check.hpp>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include <zcuda/base/enum_words.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/base/time_name.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kMark = "ZCUDA-TORCH-CHECK ";

// The last lines of a stream, for a check that ended without its result line.
std::string tail(std::string_view text, std::size_t lines) {
  std::size_t at = text.size();
  while (at > 0 && (text[at - 1] == '\n' || text[at - 1] == '\r')) --at;
  std::size_t start = at;
  for (std::size_t n = 0; n < lines && start > 0; ++n) {
    start = text.rfind('\n', start - 1);
    if (start == std::string_view::npos) {
      start = 0;
      break;
    }
  }
  return std::string(text.substr(start, at - start));
}

fs::path checks_dir(const home::Home& home) { return home.state / "apps" / "checks"; }

// What a record keeps of the program's words (a reason, its last lines of stderr).
constexpr std::size_t kMaxWords = 4000;

// A pass is believed only with the facts that prove it: CUDA available, a device named, and every
// comparison with the CPU run and within its tolerance. A program that prints only the marker
// (or a check that was cut short) proves nothing. Says what is missing, nullopt when nothing is.
std::optional<std::string> pass_not_shown(const json& facts) {
  if (facts.value("cuda_available", false) != true) return "it does not say CUDA is available";
  if (!facts.contains("device") || !facts["device"].is_string() || facts["device"].get<std::string>().empty()) return "it names no device";
  if (!facts.contains("comparisons") || !facts["comparisons"].is_array() || facts["comparisons"].empty()) {
    return "it holds no comparison with the CPU";
  }
  for (const auto& c : facts["comparisons"]) {
    if (!c.is_object() || c.value("ok", false) != true || !c.contains("max_relative_error") || !c["max_relative_error"].is_number() ||
        !c.contains("tolerance") || !c["tolerance"].is_number() || c["max_relative_error"].get<double>() > c["tolerance"].get<double>()) {
      return "a comparison with the CPU does not show its result within tolerance";
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::unavailable:
      return "unavailable";
    case CheckStatus::error:
      return "error";
  }
  return "error";
}

void to_json(json& j, const CheckRecord& r) {
  j = {{"check", to_string(r.check)},
       {"profile", r.profile},
       {"app", r.app},
       {"runtime", r.runtime},
       {"started_utc", r.started_utc},
       {"zcuda_version", r.zcuda_version},
       {"status", to_string(r.status)},
       {"reason", r.reason},
       {"flavour_problem", r.flavour_problem ? json(*r.flavour_problem) : json(nullptr)},
       {"facts", r.facts}};
}

void from_json(const json& j, CheckRecord& r) {
  const std::string check = j.value("check", "torch");
  auto kind = enum_from_word(check, {Check::torch, Check::fatbin, Check::physx, Check::none});
  if (!kind) throw json::other_error::create(501, "unknown check \"" + check + "\"", &j);
  r.check = *kind;
  j.at("profile").get_to(r.profile);
  j.at("app").get_to(r.app);
  j.at("runtime").get_to(r.runtime);
  j.at("started_utc").get_to(r.started_utc);
  r.zcuda_version = j.value("zcuda_version", "");
  const std::string word = j.at("status").get<std::string>();
  auto status = enum_from_word(word, {CheckStatus::pass, CheckStatus::fail, CheckStatus::unavailable, CheckStatus::error});
  if (!status) throw json::other_error::create(501, "unknown check status \"" + word + "\"", &j);
  r.status = *status;
  r.reason = j.value("reason", "");
  if (j.contains("flavour_problem") && j["flavour_problem"].is_string()) r.flavour_problem = j["flavour_problem"].get<std::string>();
  r.facts = j.value("facts", json::object());
}

Result<std::string_view> torch_check_script() {
  auto script = knowledge::find("torch-check.py");
  if (!script) return fail(ErrorKind::internal, "this zcuda was built without its torch check (manifests/torch-check.py)");
  return *script;
}

void read_check_output(std::string_view out, std::string_view err, int exit_code, CheckRecord& record) {
  const auto at = out.rfind(kMark);
  if (at == std::string_view::npos) {
    record.status = CheckStatus::error;
    record.reason = fmt::format("the check ended ({}) without its result line",
                                exit_code == 0 ? std::string("exit code 0") : fmt::format("exit code {}", exit_code));
    std::string last = tail(err, 6);
    // One enormous line (a dump, a progress bar never ended) must not become the record.
    if (last.size() > kMaxWords) last = "…" + last.substr(last.size() - kMaxWords);
    if (!last.empty()) record.reason += "; its last words:\n" + last;
    return;
  }
  auto end = out.find('\n', at);
  const auto line = out.substr(at + kMark.size(), end == std::string_view::npos ? std::string_view::npos : end - at - kMark.size());
  const json facts = json::parse(line, nullptr, false);
  if (facts.is_discarded() || !facts.is_object()) {
    record.status = CheckStatus::error;
    record.reason = "the check's result line is not JSON";
    return;
  }
  record.facts = facts;
  const std::string word = facts.value("status", "error");
  record.status = enum_from_word(word, {CheckStatus::pass, CheckStatus::fail, CheckStatus::unavailable}).value_or(CheckStatus::error);
  record.reason = facts.value("reason", "");
  if (record.reason.size() > kMaxWords) record.reason = record.reason.substr(0, kMaxWords) + "…";
  if (record.status == CheckStatus::pass) {
    if (auto missing = pass_not_shown(facts)) {
      record.status = CheckStatus::error;
      record.reason = "the check's result line says pass, but " + *missing + ": a pass must show CUDA working";
    }
  }
}

Status run_torch_check(const launch::LaunchPlan& plan, std::chrono::seconds timeout, CheckRecord& record) {
  platform::ProcessSpec spec;
  spec.program = plan.program;
  spec.args = plan.args;
  spec.environment = plan.environment;
  spec.streams = platform::StreamMode::capture;
  spec.timeout = timeout;
  auto ran = platform::run_process(spec);
  if (!ran) return std::unexpected(ran.error());
  if (ran->timed_out && ran->out.find(kMark) == std::string::npos) {
    record.status = CheckStatus::error;
    record.reason = fmt::format("the check did not finish in {} s (its process tree was killed)", timeout.count());
    return {};
  }
  read_check_output(ran->out, ran->err, ran->exit_code, record);
  return {};
}

Result<fs::path> write_check(const home::Home& home, const CheckRecord& record) {
  const fs::path file = checks_dir(home) / (time_ordered_name() + ".json");
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return std::unexpected(io_error("create folder", file.parent_path(), ec));
  if (auto written = platform::write_file_atomic(file, json(record).dump(2) + "\n"); !written) return std::unexpected(written.error());
  return file;
}

std::vector<CheckRecord> read_checks(const home::Home& home, std::size_t limit) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(checks_dir(home), ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  std::sort(files.rbegin(), files.rend());  // time-ordered names: newest first
  std::vector<CheckRecord> out;
  for (const auto& f : files) {
    if (out.size() >= limit) break;
    auto text = platform::read_file(f);
    if (!text) continue;
    if (auto record = parse_record_text<CheckRecord>(*text, "application check record")) out.push_back(std::move(*record));
  }
  return out;
}

bool any_check_passed(const home::Home& home) {
  return std::ranges::any_of(read_checks(home, 50), [](const CheckRecord& r) { return r.proves_application(); });
}

}  // namespace zcuda::apps
