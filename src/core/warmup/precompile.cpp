// Running ZLUDA's zluda_precompile over files, one process per file so each gets its own time
// and its own verdict, judged from ZLUDA's kernel cache (the tool itself reports nothing per module).
#include <map>

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

// Every file of the cache folder with its size and modification time: SQLite in WAL mode may
// grow the journal without touching the database file, so all of them count.
std::map<fs::path, std::pair<std::uintmax_t, fs::file_time_type>> cache_state(const fs::path& folder) {
  std::map<fs::path, std::pair<std::uintmax_t, fs::file_time_type>> state;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    state[it->path()] = {it->file_size(entry_ec), it->last_write_time(entry_ec)};
  }
  return state;
}

}  // namespace

fs::path zluda_cache_folder(const caches::Inputs& inputs) {
  for (const auto& folder : caches::locate(inputs)) {
    if (folder.name == "zluda") return folder.path;
  }
  return {};
}

Result<std::vector<FileResult>> precompile(const fs::path& tool, const std::vector<fs::path>& files, const platform::Environment& environment,
                                           const PrecompileOptions& options, const Progress& progress, const std::atomic<bool>* cancel) {
  std::vector<FileResult> out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (cancel && cancel->load()) return fail(ErrorKind::interrupted, "Warm-up stopped before it finished");
    if (progress.started) progress.started(i, files.size(), files[i]);
    platform::ProcessSpec spec;
    spec.program = tool;
    spec.args = {"--device", std::to_string(options.device), zcuda::path_to_utf8(files[i])};
    spec.environment = environment;
    spec.streams = platform::StreamMode::capture;
    spec.cancel = cancel;
    const auto before = cache_state(options.cache);
    auto ran = platform::run_process(spec);
    if (!ran) return std::unexpected(ran.error());
    if (ran->cancelled) return fail(ErrorKind::interrupted, "Warm-up stopped before it finished");
    FileResult result;
    result.file = files[i];
    result.seconds = ran->seconds;
    const bool exited_well = ran->exit_code == 0 && !ran->signal && !ran->exception_status && !ran->timed_out;
    result.cache_changed = cache_state(options.cache) != before;
    // Without a cache folder to look at (no user cache folder), the exit code alone decides.
    result.ok = exited_well && (result.cache_changed || options.cache.empty());
    if (!exited_well) {
      result.ended = platform::describe_exit(*ran);
    } else if (!result.ok) {
      result.ended = fmt::format("exit code 0, but ZLUDA's kernel cache ({}) did not change: no module of this file was compiled", options.cache);
    }
    result.output = tail(ran->out + ran->err);
    if (progress.finished) progress.finished(i, files.size(), result);
    out.push_back(std::move(result));
  }
  return out;
}

nlohmann::json to_json(const FileResult& result) {
  return {{"file", zcuda::path_to_utf8(result.file)},
          {"ok", result.ok},
          {"cache_changed", result.cache_changed},
          {"seconds", result.seconds},
          {"ended", result.ok ? nlohmann::json(nullptr) : nlohmann::json(result.ended)},
          {"output", result.output}};
}

}  // namespace zcuda::warmup
