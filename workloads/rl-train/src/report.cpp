#include "report.hpp"

#include <cstdio>
#include <utility>

namespace rl {
namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

// CSV fields: quoted when they hold a separator, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::string iteration_line(const IterationStats& stats) {
  return "iter " + std::to_string(stats.iteration) + " overall_sps " + format("%.2f", stats.overall_sps()) + " collection_sps " +
         format("%.2f", stats.collection_sps()) + " consumption_sps " + format("%.2f", stats.consumption_sps()) + " inference_s " +
         format("%.6f", stats.inference_s) + " ppo_learn_s " + format("%.6f", stats.ppo_learn_s) + " loss " + format("%.6f", stats.loss) +
         " return " + format("%.6f", stats.episode_return);
}

CsvWriter::CsvWriter(const std::string& path, std::string runtime, std::string trial)
    // Binary: rows end in "\n" on every platform.
    : out_(path, std::ios::out | std::ios::trunc | std::ios::binary), runtime_(std::move(runtime)), trial_(std::move(trial)) {
  out_ << "runtime,trial,iteration,overall_sps,collection_sps,consumption_sps,inference_s,ppo_learn_s,"
          "collection_s,consumption_s\n";
  out_.flush();
}

void CsvWriter::write(const IterationStats& stats) {
  out_ << csv_field(runtime_) << ',' << csv_field(trial_) << ',' << stats.iteration << ',' << format("%.4f", stats.overall_sps()) << ','
       << format("%.4f", stats.collection_sps()) << ',' << format("%.4f", stats.consumption_sps()) << ',' << format("%.6f", stats.inference_s) << ','
       << format("%.6f", stats.ppo_learn_s) << ',' << format("%.6f", stats.collection_s) << ',' << format("%.6f", stats.consumption_s) << '\n';
  out_.flush();  // a run killed mid-way keeps the rows it finished
}

}  // namespace rl
