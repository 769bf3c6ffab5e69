// Running ZLUDA's zluda_precompile over files, one process per file so each gets its own time
// and its own verdict.
#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/warmup/warmup.hpp>

namespace zcuda::warmup {

namespace fs = std::filesystem;

Result<fs::path> find_precompile(const fs::path& runtime_dir, platform::Os os) {
  const fs::path tool = runtime_dir / (os == platform::Os::windows ? "zluda_precompile.exe" : "zluda_precompile");
  std::error_code ec;
  if (fs::is_regular_file(tool, ec)) return tool;
  return fail(
      ErrorKind::environment, fmt::format("This ZLUDA runtime has no zluda_precompile ({} does not exist)", tool),
      "Recent ZLUDA builds ship it beside their libraries: install one with 'zcuda install', or pass --runtime-dir with a build that has it.");
}

namespace {

// The last lines of a tool's output, enough to see why it failed.
std::string tail(const std::string& text, std::size_t max_bytes = 2000) {
  if (text.size() <= max_bytes) return text;
  auto cut = text.find('\n', text.size() - max_bytes);
  return cut == std::string::npos ? text.substr(text.size() - max_bytes) : text.substr(cut + 1);
}

}  // namespace

Result<std::vector<FileResult>> precompile(const fs::path& tool, const std::vector<fs::path>& files, const platform::Environment& environment,
                                           const Progress& progress, const std::atomic<bool>* cancel) {
  std::vector<FileResult> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (cancel && cancel->load()) return fail(ErrorKind::interrupted, "Warm-up stopped before it finished");
    if (progress.started) progress.started(i, files.size(), files[i]);
    platform::ProcessSpec spec;
    spec.program = tool;
    spec.args = {zcuda::path_to_utf8(files[i])};
    spec.environment = environment;
    spec.streams = platform::StreamMode::capture;
    spec.cancel = cancel;
    auto ran = platform::run_process(spec);
    if (!ran) return std::unexpected(ran.error());
    if (ran->cancelled) return fail(ErrorKind::interrupted, "Warm-up stopped before it finished");
    FileResult result;
    result.file = files[i];
    result.seconds = ran->seconds;
    result.ok = ran->exit_code == 0 && !ran->signal && !ran->exception_status && !ran->timed_out;
    if (!result.ok) result.ended = platform::describe_exit(*ran);
    result.output = tail(ran->out + ran->err);
    if (progress.finished) progress.finished(i, files.size(), result);
    out.push_back(std::move(result));
  }
  return out;
}

nlohmann::json to_json(const FileResult& result) {
  return {{"file", zcuda::path_to_utf8(result.file)},
          {"ok", result.ok},
          {"seconds", result.seconds},
          {"ended", result.ok ? nlohmann::json(nullptr) : nlohmann::json(result.ended)},
          {"output", result.output}};
}

}  // namespace zcuda::warmup
