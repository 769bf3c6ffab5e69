// The run record: its JSON form, and writing and reading it under home.
#include <zcuda/launch/run_record.hpp>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/time_name.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;
using nlohmann::json;

void to_json(json& out, const RunRecord& r) {
  json environment = json::array();
  for (const auto& v : r.environment) environment.push_back({{"name", v.name}, {"value", v.value}});
  out = {{"schema", kRunRecordSchema},
         {"started_utc", r.started_utc},
         {"seconds", r.seconds},
         {"exit_code", r.exit_code},
         {"signal", r.signal ? json(*r.signal) : json(nullptr)},
         {"program", r.program},
         {"arg_count", r.arg_count},
         {"runtime",
          {{"dir", r.runtime_dir}, {"chosen_by", r.runtime_chosen_by}, {"version", r.runtime_version ? json(*r.runtime_version) : json(nullptr)}}},
         {"zcuda", r.zcuda_version},
         {"knowledge", r.knowledge ? json(*r.knowledge) : json(nullptr)},
         {"staged", r.staged},
         {"environment", std::move(environment)},
         {"explained", r.explained ? json{{"id", r.explained->id}, {"title", r.explained->title}} : json(nullptr)},
         {"traces", r.traces ? json{{"folder", r.traces->folder}, {"files", r.traces->files}} : json(nullptr)}};
}

void from_json(const json& in, RunRecord& r) {
  const int schema = in.at("schema").get<int>();
  if (schema != 1 && schema != kRunRecordSchema) {
    throw json::other_error::create(501, fmt::format("run record schema {} (this zcuda reads 1 and {})", schema, kRunRecordSchema), &in);
  }
  r.started_utc = in.at(schema == 1 ? "started" : "started_utc").get<std::string>();
  r.seconds = in.at("seconds").get<double>();
  r.exit_code = in.at("exit_code").get<int>();
  r.signal = in.at("signal").is_null() ? std::nullopt : std::optional<int>(in.at("signal").get<int>());
  r.program = in.at("program").get<std::string>();
  r.arg_count = in.at("arg_count").get<std::size_t>();
  const auto& runtime = in.at("runtime");
  r.runtime_dir = runtime.at("dir").get<std::string>();
  r.runtime_chosen_by = runtime.at("chosen_by").get<std::string>();
  r.runtime_version = runtime.at("version").is_null() ? std::nullopt : std::optional<std::string>(runtime.at("version").get<std::string>());
  r.zcuda_version = in.at("zcuda").get<std::string>();
  r.knowledge.reset();
  if (in.contains("knowledge") && !in.at("knowledge").is_null()) r.knowledge = in.at("knowledge").get<std::uint64_t>();
  r.staged = in.at("staged").get<bool>();
  r.environment.clear();
  for (const auto& v : in.at("environment")) r.environment.push_back({v.at("name").get<std::string>(), v.at("value").get<std::string>()});
  r.explained.reset();
  if (in.contains("explained") && !in.at("explained").is_null()) {
    r.explained = ExplainedFailure{in.at("explained").at("id").get<std::string>(), in.at("explained").at("title").get<std::string>()};
  }
  r.traces.reset();
  if (in.contains("traces") && !in.at("traces").is_null()) {
    r.traces = RecordedTraces{in.at("traces").at("folder").get<std::string>(), in.at("traces").at("files").get<std::vector<std::string>>()};
  }
}

Result<fs::path> write_run_record(const home::Home& home, const RunRecord& r) {
  const fs::path file = home.state / "runs" / (time_ordered_name() + ".json");
  // Not flushed to disk: a record lost to a power cut is not worth an fsync on every launch.
  if (auto written = platform::write_file_atomic(file, json_text(json(r)) + "\n", platform::Durability::unflushed); !written) {
    return std::unexpected(written.error());
  }
  return file;
}

Result<RunRecord> read_run_record(const fs::path& file) {
  auto text = platform::read_file(file, 1u << 20);
  if (!text) return std::unexpected(text.error());
  auto record = parse_record_text<RunRecord>(*text, "run record");
  if (!record) return std::unexpected(std::move(record.error()).with_note(fmt::format("in {}", file)));
  return record;
}

std::vector<RunRecord> recent_run_records(const home::Home& home, std::size_t limit) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(home.state / "runs", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  // Named by time, so the newest sort last.
  std::sort(files.begin(), files.end());
  std::vector<RunRecord> records;
  for (auto it = files.rbegin(); it != files.rend() && records.size() < limit; ++it) {
    if (auto record = read_run_record(*it)) records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace zcuda::launch
