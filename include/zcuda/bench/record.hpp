#pragma once
// The bench record: what `zcuda bench` writes under the home's state/bench/ and what `report`
// reads back. One to_json/from_json pair, owned here, serves both (docs/bench.md lists the fields).
#include <filesystem>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/home/home.hpp>
#include <zcuda/bench/paired.hpp>
#include <zcuda/bench/stats.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::bench {

// 4: each variant's program (bench --b-program gives B its own).
// 3: the verdict `withheld`, the order's seed, --runs auto's pilot, the analysis' warnings.
// 2: the paired analysis (order, run positions and summaries, pairs, method). 1 to 3 still read.
inline constexpr int kRecordSchema = 4;

struct CheckResult {
  int exit_code = 0;
  bool ok = false;
  double seconds = 0;
};

struct RunResult {
  int number = 0;       // 1..runs within its variant
  int position = 0;     // 1.. in the launch order of the whole bench; 0 in schema 1 records
  std::string started;  // UTC, ISO 8601; empty in schema 1 records
  int exit_code = 0;
  std::optional<int> signal;  // POSIX: the signal that ended it
  bool timed_out = false;
  bool cancelled = false;            // stopped by Ctrl-C
  double seconds = 0;                // wall time of the launch, start to exit
  std::vector<double> values;        // every value found, warm-up included
  std::optional<CheckResult> check;  // --check, when given and the run itself passed
  std::string failure;               // empty when the run passed; else why it did not
  std::string output_tail;           // the end of its output, kept only for a failed run

  bool ok() const { return failure.empty(); }
};

struct Library {
  std::string name;
  std::string sha256;
};

struct RuntimeInfo {
  std::string spec;                    // as given: "native", a version, a folder, or "default"
  std::string dir;                     // empty for native
  std::optional<std::string> version;  // the installed ZLUDA release, when known
  bool through_launcher = false;       // Windows: started through zluda.exe; stored as launch "zluda.exe" | "direct"
  std::vector<Library> libraries;      // the runtime's CUDA libraries and their digests
};

// The program a variant ran: the application itself, or with --b-program B's own.
struct ProgramInfo {
  std::string path;
  std::string sha256;  // empty when the file could not be read
  std::vector<std::string> args;
  std::optional<std::string> profile;
};

struct VariantRecord {
  std::string name;  // "A" or "B"
  std::string label;
  // Schema 4: what this variant ran (before: the record's `app` for both).
  std::optional<ProgramInfo> program;
  RuntimeInfo runtime;
  std::map<std::string, std::string> env;  // --a-env / --b-env (a later one replaces an earlier)
  std::vector<RunResult> runs;
  std::vector<double> values;      // the kept values: warm-up dropped from every run
  std::optional<Summary> summary;  // of `values`; none when the variant is not ok
  bool ok = false;                 // every run passed and values were found
};

// The unpaired figures (kept for anyone who wants them): pooled medians and the two-stage
// bootstrap of stats.hpp.
struct UnpairedRecord {
  double b_vs_a_percent = 0;
  std::pair<double, double> ci95_percent;
  Verdict verdict = Verdict::invalid;
};

inline constexpr std::string_view kUnpairedMethod = "two-stage-bootstrap/1";
// What schema 1 records' figures came from (an unpaired bootstrap of the zcuda that ran).
inline constexpr std::string_view kSchema1Method = "unpaired-bootstrap (schema 1)";

struct ComparisonRecord {
  std::string measure;  // "wall-seconds" or the --metric pattern
  Better better = Better::higher;
  int warmup = 0;
  std::string method = std::string(kPairedMethod);
  std::optional<double> b_vs_a_percent;
  std::optional<std::pair<double, double>> ci95_percent;
  Verdict verdict = Verdict::invalid;
  std::string summary;   // the sentence a person reads first
  std::string withheld;  // why no directional verdict was given although an interval was
  std::vector<Pair> pairs;
  std::optional<double> sd_log_ratio;
  std::optional<double> smallest_detectable_percent;
  std::optional<int> pairs_needed;  // for kNeededForEffectPercent, with no clear difference
  std::vector<Outlier> outliers;
  // What the reader must know beside the figure: runs whose count of values differs from the
  // others', an order that does not cancel drift or does not follow from its seed.
  std::vector<std::string> warnings;
  std::optional<UnpairedRecord> unpaired;
  std::uint64_t bootstrap_seed = 0;
  int bootstrap_resamples = 0;
};

struct GpuInfo {
  std::string name;
  std::string vendor;  // "amd", "nvidia", ...
  std::string gfx;
  std::string driver;
};

struct MachineInfo {
  platform::Os os = platform::Os::linux;
  std::vector<GpuInfo> gpus;
  std::string amd_driver;  // version, when an AMD driver is present
  std::string hip_sdk;     // "6.4.0 at C:\Program Files\AMD\ROCm\6.4"
  bool nvidia_gpu = false;
};

struct AppInfo {
  std::string path;
  std::string sha256;
  std::vector<std::string> args;
  // The application profile whose variables, launch mode and placement every ZLUDA variant's runs
  // had (zcuda apps); none when the program matched no profile.
  std::optional<std::string> profile;
};

struct BenchRecord {
  int schema = kRecordSchema;
  std::string started;  // UTC, ISO 8601
  std::string finished;
  bool complete = true;  // false when stopped by Ctrl-C
  std::string zcuda_version;
  std::optional<std::uint64_t> knowledge;  // the knowledge bundle's version; absent in older records
  AppInfo app;
  int runs_per_variant = 0;
  std::string order;  // "ABBABAAB..."; schema 1 records ran "ABAB..."
  // The seed that chose the first block (balanced_order); none before schema 3 (A B B A first).
  std::optional<std::uint64_t> order_seed;
  std::optional<double> target_percent;  // --runs auto --target: the half-width aimed at
  // --runs auto: the pairs (warm-up included) of the pilot that met the target; the figure comes
  // from the pairs after them. None when the target was not met (or before schema 3).
  std::optional<int> pilot_pairs;
  int expect_exit = 0;
  std::optional<double> timeout_seconds;
  std::optional<std::string> check;
  std::vector<VariantRecord> variants;
  ComparisonRecord comparison;
  MachineInfo machine;

  // Application verified: complete, both variants ok, and an output check ran on every run.
  bool output_verified() const;
};

nlohmann::json to_json(const BenchRecord& record);
// Reads what to_json wrote; an invalid_input error naming the field otherwise.
Result<BenchRecord> bench_record_from_json(const nlohmann::json& json);

// Writes <home.state>/bench/<time>-<n>.json; returns its path.
Result<std::filesystem::path> write_bench_record(const home::Home& home, const BenchRecord& record);

struct StoredBench {
  std::filesystem::path file;
  BenchRecord record;
};
// The newest `limit` readable records, newest first; unreadable files are skipped.
std::vector<StoredBench> read_bench_records(const home::Home& home, std::size_t limit);

// Whether any of the newest records under home is application-verified (the evidence ladder's
// top level).
bool any_output_verified(const home::Home& home);

}  // namespace zcuda::bench
