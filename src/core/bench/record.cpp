#include <zcuda/bench/record.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/time_name.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::bench {

namespace fs = std::filesystem;
using nlohmann::json;

bool BenchRecord::output_verified() const {
  if (!complete || !check || variants.size() != 2) return false;
  return std::ranges::all_of(variants, [](const VariantRecord& v) {
    return v.ok && !v.runs.empty() && std::ranges::all_of(v.runs, [](const RunResult& r) { return r.check && r.check->ok; });
  });
}

namespace {

// The words a bench record stores for how a variant was started.
constexpr const char* kThroughLauncher = "zluda.exe";
constexpr const char* kDirect = "direct";

template <class T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <class T>
std::optional<T> optional_from(const json& object, const char* key) {
  if (!object.contains(key) || object.at(key).is_null()) return std::nullopt;
  return object.at(key).get<T>();
}

json run_json(const RunResult& r) {
  json check = nullptr;
  if (r.check) check = {{"exit_code", r.check->exit_code}, {"ok", r.check->ok}, {"seconds", r.check->seconds}};
  return {{"run", r.number},
          {"position", r.position},
          {"started", r.started},
          {"exit_code", r.exit_code},
          {"signal", optional_json(r.signal)},
          {"timed_out", r.timed_out},
          {"cancelled", r.cancelled},
          {"seconds", r.seconds},
          {"values", r.values},
          {"check", check},
          {"ok", r.ok()},
          {"failure", r.failure},
          {"output_tail", r.output_tail}};
}

RunResult run_from(const json& j) {
  RunResult r;
  r.number = j.at("run").get<int>();
  r.position = j.value("position", 0);  // schema 1 records have neither
  r.started = j.value("started", std::string());
  r.exit_code = j.at("exit_code").get<int>();
  r.signal = optional_from<int>(j, "signal");
  r.timed_out = j.at("timed_out").get<bool>();
  r.cancelled = j.at("cancelled").get<bool>();
  r.seconds = j.at("seconds").get<double>();
  r.values = j.at("values").get<std::vector<double>>();
  if (const json& c = j.at("check"); !c.is_null()) {
    r.check = CheckResult{c.at("exit_code").get<int>(), c.at("ok").get<bool>(), c.at("seconds").get<double>()};
  }
  r.failure = j.at("failure").get<std::string>();
  r.output_tail = j.at("output_tail").get<std::string>();
  return r;
}

json variant_json(const VariantRecord& v) {
  json libraries = json::array();
  for (const auto& l : v.runtime.libraries) libraries.push_back({{"name", l.name}, {"sha256", l.sha256}});
  json runs = json::array();
  for (const auto& r : v.runs) runs.push_back(run_json(r));
  json program = nullptr;
  if (v.program) {
    program = {{"path", v.program->path}, {"sha256", v.program->sha256}, {"args", v.program->args}, {"profile", optional_json(v.program->profile)}};
  }
  return {{"name", v.name},
          {"label", v.label},
          {"program", program},
          {"runtime",
           {{"spec", v.runtime.spec},
            {"dir", v.runtime.dir},
            {"version", optional_json(v.runtime.version)},
            {"launch", v.runtime.through_launcher ? kThroughLauncher : kDirect},
            {"libraries", libraries}}},
          {"env", v.env},
          {"runs", runs},
          {"values", v.values},
          {"median", v.summary ? json(v.summary->median) : json(nullptr)},
          {"min", v.summary ? json(v.summary->min) : json(nullptr)},
          {"max", v.summary ? json(v.summary->max) : json(nullptr)},
          {"ok", v.ok}};
}

VariantRecord variant_from(const json& j) {
  VariantRecord v;
  v.name = j.at("name").get<std::string>();
  v.label = j.at("label").get<std::string>();
  // Schema 4; before, both variants ran the record's `app`.
  if (j.contains("program") && !j.at("program").is_null()) {
    const json& p = j.at("program");
    v.program = ProgramInfo{p.at("path").get<std::string>(), p.at("sha256").get<std::string>(), p.at("args").get<std::vector<std::string>>(),
                            optional_from<std::string>(p, "profile")};
  }
  const json& rt = j.at("runtime");
  v.runtime.spec = rt.at("spec").get<std::string>();
  v.runtime.dir = rt.at("dir").get<std::string>();
  v.runtime.version = optional_from<std::string>(rt, "version");
  const auto launch = rt.at("launch").get<std::string>();
  if (launch != kThroughLauncher && launch != kDirect)
    throw json::other_error::create(501, "runtime.launch '" + launch + "' is not direct or zluda.exe", &rt);
  v.runtime.through_launcher = launch == kThroughLauncher;
  for (const auto& l : rt.at("libraries")) v.runtime.libraries.push_back({l.at("name").get<std::string>(), l.at("sha256").get<std::string>()});
  v.env = j.at("env").get<std::map<std::string, std::string>>();
  for (const auto& r : j.at("runs")) v.runs.push_back(run_from(r));
  v.values = j.at("values").get<std::vector<double>>();
  if (!j.at("median").is_null()) v.summary = Summary{j.at("median").get<double>(), j.at("min").get<double>(), j.at("max").get<double>()};
  v.ok = j.at("ok").get<bool>();
  return v;
}

json ci_json(const std::optional<std::pair<double, double>>& ci) { return ci ? json::array({ci->first, ci->second}) : json(nullptr); }

std::optional<std::pair<double, double>> ci_from(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return std::pair(j.at(key).at(0).get<double>(), j.at(key).at(1).get<double>());
}

Verdict verdict_from(const json& j) {
  auto verdict = parse_verdict(j.at("verdict").get<std::string>());
  if (!verdict) throw json::other_error::create(501, "comparison.verdict is not a known verdict", &j);
  return *verdict;
}

json comparison_json(const ComparisonRecord& c) {
  json pairs = json::array();
  for (const auto& p : c.pairs) pairs.push_back({{"pair", p.number}, {"a", p.a}, {"b", p.b}, {"log_ratio", p.log_ratio}});
  json outliers = json::array();
  for (const auto& o : c.outliers) outliers.push_back({{"of", o.what}, {"run", o.run}, {"percent_from_typical", o.percent_from_typical}});
  json unpaired = nullptr;
  if (c.unpaired) {
    unpaired = {{"method", kUnpairedMethod},
                {"b_vs_a_percent", c.unpaired->b_vs_a_percent},
                {"ci95_percent", ci_json(c.unpaired->ci95_percent)},
                {"verdict", to_string(c.unpaired->verdict)}};
  }
  json needed = nullptr;
  if (c.pairs_needed) needed = {{"effect_percent", kNeededForEffectPercent}, {"pairs", *c.pairs_needed}};
  return {{"measure", c.measure},
          {"better", to_string(c.better)},
          {"warmup", c.warmup},
          {"method", c.method},
          {"b_vs_a_percent", optional_json(c.b_vs_a_percent)},
          {"ci95_percent", ci_json(c.ci95_percent)},
          {"verdict", to_string(c.verdict)},
          {"summary", c.summary},
          {"withheld", c.withheld},
          {"pairs", pairs},
          {"sd_log_ratio", optional_json(c.sd_log_ratio)},
          {"smallest_detectable_percent", optional_json(c.smallest_detectable_percent)},
          {"pairs_needed", needed},
          {"outliers", outliers},
          {"warnings", c.warnings},
          {"unpaired", unpaired},
          {"bootstrap", {{"seed", c.bootstrap_seed}, {"resamples", c.bootstrap_resamples}}}};
}

ComparisonRecord comparison_from(const json& j, int schema) {
  ComparisonRecord c;
  c.measure = j.at("measure").get<std::string>();
  auto better = parse_better(j.at("better").get<std::string>());
  if (!better) throw json::other_error::create(501, "comparison.better is neither 'higher' nor 'lower'", &j);
  c.better = *better;
  c.warmup = j.at("warmup").get<int>();
  c.b_vs_a_percent = optional_from<double>(j, "b_vs_a_percent");
  c.ci95_percent = ci_from(j, "ci95_percent");
  c.verdict = verdict_from(j);
  c.summary = j.at("summary").get<std::string>();
  c.bootstrap_seed = j.at("bootstrap").at("seed").get<std::uint64_t>();
  c.bootstrap_resamples = j.at("bootstrap").at("resamples").get<int>();
  if (schema == 1 && !j.contains("method")) {
    c.method = std::string(kSchema1Method);
    return c;
  }
  c.method = j.at("method").get<std::string>();
  c.withheld = j.at("withheld").get<std::string>();
  // Before schema 3 a withheld verdict was stored as no-clear-difference with its reason.
  if (c.verdict == Verdict::no_clear_difference && !c.withheld.empty()) c.verdict = Verdict::withheld;
  if (j.contains("warnings")) c.warnings = j.at("warnings").get<std::vector<std::string>>();
  for (const auto& p : j.at("pairs")) {
    c.pairs.push_back({p.at("pair").get<int>(), p.at("a").get<double>(), p.at("b").get<double>(), p.at("log_ratio").get<double>()});
  }
  c.sd_log_ratio = optional_from<double>(j, "sd_log_ratio");
  c.smallest_detectable_percent = optional_from<double>(j, "smallest_detectable_percent");
  if (const json& n = j.at("pairs_needed"); !n.is_null()) c.pairs_needed = n.at("pairs").get<int>();
  for (const auto& o : j.at("outliers")) {
    c.outliers.push_back({o.at("of").get<std::string>(), o.at("run").get<int>(), o.at("percent_from_typical").get<double>()});
  }
  if (const json& u = j.at("unpaired"); !u.is_null()) {
    c.unpaired = UnpairedRecord{u.at("b_vs_a_percent").get<double>(), *ci_from(u, "ci95_percent"), verdict_from(u)};
  }
  return c;
}

json machine_json(const MachineInfo& m) {
  json gpus = json::array();
  for (const auto& g : m.gpus) gpus.push_back({{"name", g.name}, {"vendor", g.vendor}, {"gfx", g.gfx}, {"driver", g.driver}});
  return {{"os", platform::os_id(m.os)}, {"gpus", gpus}, {"amd_driver", m.amd_driver}, {"hip_sdk", m.hip_sdk}, {"nvidia_gpu", m.nvidia_gpu}};
}

MachineInfo machine_from(const json& j) {
  MachineInfo m;
  const auto os = j.at("os").get<std::string>();
  if (!platform::os_from_id(os)) throw json::other_error::create(501, "machine.os '" + os + "' is not linux or windows", &j);
  m.os = *platform::os_from_id(os);
  for (const auto& g : j.at("gpus")) {
    m.gpus.push_back(
        {g.at("name").get<std::string>(), g.at("vendor").get<std::string>(), g.at("gfx").get<std::string>(), g.at("driver").get<std::string>()});
  }
  m.amd_driver = j.at("amd_driver").get<std::string>();
  m.hip_sdk = j.at("hip_sdk").get<std::string>();
  m.nvidia_gpu = j.at("nvidia_gpu").get<bool>();
  return m;
}

}  // namespace

json to_json(const BenchRecord& r) {
  json variants = json::array();
  for (const auto& v : r.variants) variants.push_back(variant_json(v));
  // `record_schema` as well: the --json envelope puts its own "schema" at the top of the object.
  return {{"schema", r.schema},
          {"record_schema", r.schema},
          {"command", "bench"},
          {"started", r.started},
          {"finished", r.finished},
          {"complete", r.complete},
          {"zcuda", r.zcuda_version},
          {"knowledge", optional_json(r.knowledge)},
          {"app", {{"path", r.app.path}, {"sha256", r.app.sha256}, {"args", r.app.args}, {"profile", optional_json(r.app.profile)}}},
          {"runs_per_variant", r.runs_per_variant},
          {"order", r.order},
          {"order_seed", optional_json(r.order_seed)},
          {"target_percent", optional_json(r.target_percent)},
          {"pilot_pairs", optional_json(r.pilot_pairs)},
          {"expect_exit", r.expect_exit},
          {"timeout_seconds", optional_json(r.timeout_seconds)},
          {"check", optional_json(r.check)},
          {"output_verified", r.output_verified()},
          {"variants", variants},
          {"comparison", comparison_json(r.comparison)},
          {"machine", machine_json(r.machine)}};
}

Result<BenchRecord> bench_record_from_json(const json& j) {
  try {
    BenchRecord r;
    r.schema = j.contains("record_schema") ? j.at("record_schema").get<int>() : j.at("schema").get<int>();
    if (r.schema < 1 || r.schema > kRecordSchema) {
      return fail(ErrorKind::invalid_input,
                  fmt::format("bench record schema {} is not supported (this zcuda reads 1 to {})", r.schema, kRecordSchema),
                  "A newer zcuda wrote it; read it with that version.");
    }
    r.started = j.at("started").get<std::string>();
    r.finished = j.at("finished").get<std::string>();
    r.complete = j.at("complete").get<bool>();
    r.zcuda_version = j.at("zcuda").get<std::string>();
    if (j.contains("knowledge") && !j.at("knowledge").is_null()) r.knowledge = j.at("knowledge").get<std::uint64_t>();
    const json& app = j.at("app");
    // Records from before profiles have no "profile".
    r.app = {app.at("path").get<std::string>(), app.at("sha256").get<std::string>(), app.at("args").get<std::vector<std::string>>(),
             optional_from<std::string>(app, "profile")};
    r.runs_per_variant = j.at("runs_per_variant").get<int>();
    // Schema 1 always alternated A B A B. (Output of `bench --json` before record_schema
    // existed says schema 1, the envelope's, and has the order: fields are read where present.)
    if (r.schema == 1 && !j.contains("order")) {
      for (int i = 0; i < r.runs_per_variant; ++i) r.order += "AB";
    } else {
      r.order = j.at("order").get<std::string>();
      r.target_percent = optional_from<double>(j, "target_percent");
      r.order_seed = optional_from<std::uint64_t>(j, "order_seed");  // schema 3
      r.pilot_pairs = optional_from<int>(j, "pilot_pairs");
    }
    r.expect_exit = j.at("expect_exit").get<int>();
    r.timeout_seconds = optional_from<double>(j, "timeout_seconds");
    r.check = optional_from<std::string>(j, "check");
    for (const auto& v : j.at("variants")) r.variants.push_back(variant_from(v));
    r.comparison = comparison_from(j.at("comparison"), r.schema);
    r.machine = machine_from(j.at("machine"));
    return r;
  } catch (const json::exception& e) {
    return fail(ErrorKind::invalid_input, fmt::format("not a bench record: {}", e.what()));
  }
}

Result<fs::path> write_bench_record(const home::Home& home, const BenchRecord& record) {
  const fs::path file = home.state / "bench" / (time_ordered_name() + ".json");
  if (auto written = platform::write_file_atomic(file, json_text(to_json(record)) + "\n"); !written) return std::unexpected(written.error());
  return file;
}

std::vector<StoredBench> read_bench_records(const home::Home& home, std::size_t limit) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(home.state / "bench", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  // Names start with the UTC time, so the newest sort last.
  std::sort(files.begin(), files.end(), std::greater<>());
  std::vector<StoredBench> out;
  for (const auto& file : files) {
    if (out.size() >= limit) break;
    auto text = platform::read_file(file);
    if (!text) continue;
    auto parsed = json::parse(*text, nullptr, false);
    if (parsed.is_discarded()) continue;
    auto record = bench_record_from_json(parsed);
    if (record) out.push_back({file, std::move(*record)});
  }
  return out;
}

bool any_output_verified(const home::Home& home) {
  return std::ranges::any_of(read_bench_records(home, 50), [](const StoredBench& s) { return s.record.output_verified(); });
}

}  // namespace zcuda::bench
