#pragma once
// The record `zcuda run` keeps of each run, <home state>/runs/<time>-<n>.json, read by `zcuda
// report`. Its one JSON form is to_json/from_json here (zcuda/base/record.hpp says why).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/base/error.hpp>

namespace zcuda::launch {

// Schema 2 renamed `started` to `started_utc`; schema 1 records are still read. Fields added since
// (`explained`, `traces`) are optional, so the schema stays 2 and older zcuda versions still read
// newer records.
inline constexpr int kRunRecordSchema = 2;

struct RecordedVariable {
  std::string name;
  std::string value;
  bool operator==(const RecordedVariable&) const = default;
};

// The known failure `run` recognised in the program's stderr (zcuda explain's knowledge base).
struct ExplainedFailure {
  std::string id;
  std::string title;
  bool operator==(const ExplainedFailure&) const = default;
};

// The traces a run made with --trace (trace.hpp): the folder zluda_trace wrote into, and the
// files this run added or changed there, as found right after the program ended.
struct RecordedTraces {
  std::string folder;
  std::vector<std::string> files;
  bool operator==(const RecordedTraces&) const = default;
};

struct RunRecord {
  std::string started_utc;  // "2026-12-02T11:54:03Z"
  double seconds = 0;
  int exit_code = 0;
  std::optional<int> signal;
  std::string program;
  std::size_t arg_count = 0;  // arguments are not recorded: they may hold secrets
  std::string runtime_dir;
  std::string runtime_chosen_by;
  std::optional<std::string> runtime_version;
  std::string zcuda_version;
  std::optional<std::uint64_t> knowledge;  // the knowledge bundle's version; absent in older records
  bool staged = false;
  std::vector<RecordedVariable> environment;  // the variables zcuda set, as set
  std::optional<ExplainedFailure> explained;  // absent in records of older zcuda versions
  std::optional<RecordedTraces> traces;       // runs without --trace, and records of older zcuda versions
  bool operator==(const RunRecord&) const = default;
};

void to_json(nlohmann::json& out, const RunRecord& record);
void from_json(const nlohmann::json& in, RunRecord& record);

// Writes <home.state>/runs/<time>-<n>.json; returns its path.
Result<std::filesystem::path> write_run_record(const home::Home& home, const RunRecord& record);
// Reads one back; ErrorKind::invalid_input when it is not a run record.
Result<RunRecord> read_run_record(const std::filesystem::path& file);
// The newest records first, at most `limit`; unreadable files are skipped.
std::vector<RunRecord> recent_run_records(const home::Home& home, std::size_t limit);

}  // namespace zcuda::launch
