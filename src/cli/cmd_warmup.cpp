// zcuda warmup: compile a program's CUDA kernels into ZLUDA's cache ahead of its first run.
#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/caches/caches.hpp>
#include <zcuda/launch/detected.hpp>
#include <zcuda/launch/launch.hpp>
#include <zcuda/platform/interrupt.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>
#include <zcuda/warmup/warmup.hpp>

#include "command.hpp"
#include "launch_flags.hpp"

namespace zcuda::cli {

namespace {

struct WarmupOptions {
  std::filesystem::path app;
  RuntimeFlags runtime;
  std::optional<std::filesystem::path> hip_path;
  std::optional<std::string> device;
  bool no_detect = false;
};

}  // namespace

CommandRun setup_warmup(CLI::App& sub) {
  auto o = std::make_shared<WarmupOptions>();
  add_path_option(sub, "APP", o->app, "The program, or its folder")->required();
  add_runtime_flags(sub, o->runtime, "ZLUDA folder (default: the installed runtime)");
  add_path_option(sub, "--hip-path", o->hip_path, "HIP SDK / ROCm folder (default: HIP_PATH, else ROCm's)");
  sub.add_option("--device", o->device,
                 "HIP device to compile for, as 'zcuda run --device' (sets HIP_VISIBLE_DEVICES; default: the discrete GPU when an integrated one is "
                 "enumerated first). ZLUDA's cache is kept per GPU");
  sub.add_flag("--no-detect", o->no_detect, "Do not consult detection for --device and --hip-path");
  sub.footer(
      "Runs ZLUDA's zluda_precompile on each file of the program's folder (and lib/, torch/lib/) that carries CUDA "
      "device code and that it reads (programs and libraries: PE and 64-bit ELF files), for the GPU 'zcuda run' would use. "
      "A file counts as compiled when zluda_precompile exits 0 and ZLUDA's kernel cache changed. "
      "Exit codes: 0 all compiled, 1 a file failed, 3 nothing to warm up, 10 this ZLUDA has no zluda_precompile.");

  return [o](Context& context) -> Result<CommandOutput> {
    std::error_code ec;
    if (!std::filesystem::exists(o->app, ec)) {
      return fail(ErrorKind::not_found, fmt::format("{} does not exist", o->app), "Give the program or the folder it is in.");
    }
    auto runtime = locate_chosen_runtime(o->runtime, context.home);
    if (!runtime) return std::unexpected(runtime.error());
    const auto os = platform::current_os();
    auto tool = warmup::find_precompile(runtime->dir, os);
    if (!tool) return std::unexpected(tool.error());

    const auto scan = warmup::find_cuda_binaries(o->app);
    if (scan.binaries.empty()) {
      Error error{ErrorKind::not_found,
                  fmt::format("Nothing to warm up: no file in {} carries CUDA device code that zluda_precompile reads", o->app),
                  "Give the folder that holds the program's CUDA libraries (torch_cuda.dll, libtorch_cuda.so, ...).",
                  {}};
      for (const auto& folder : scan.folders) error.notes.push_back(fmt::format("searched {}", folder));
      for (const auto& skipped : scan.not_read) error.notes.push_back(fmt::format("not read by zluda_precompile: {}", skipped));
      return std::unexpected(std::move(error));
    }

    // zluda_precompile gets the environment `run` gives a program (HIP's folders on the search
    // path) and the same GPU: run's device choice is HIP_VISIBLE_DEVICES, under which the chosen
    // GPU is CUDA device 0, the one the program's kernels run on and ZLUDA keys its cache by.
    launch::Options launch_options;
    launch_options.program = *tool;
    launch_options.runtime = *runtime;
    launch_options.hip_path = o->hip_path;
    launch_options.device = o->device;
    launch_options.direct = true;
    if (!o->no_detect) launch::apply_detected(launch_options, launch::settings_from_profile(launch::detect_for_launch(false)));
    auto plan = launch::prepare_launch(launch_options, platform::current_environment());
    if (!plan) return std::unexpected(plan.error());

    const bool show = !context.options.quiet && !context.options.json;
    warmup::Progress progress;
    progress.started = [&](std::size_t i, std::size_t total, const std::filesystem::path& file) {
      if (show) context.notices.print(ui::NoticeKind::notice, fmt::format("[{}/{}] compiling {} ...", i + 1, total, file));
    };
    progress.finished = [&](std::size_t i, std::size_t total, const warmup::FileResult& r) {
      if (!show) return;
      if (r.ok) {
        context.notices.print(ui::NoticeKind::notice, fmt::format("[{}/{}] done in {}", i + 1, total, zcuda::format_duration(r.seconds)));
      } else {
        context.notices.print(ui::NoticeKind::warning, fmt::format("[{}/{}] {} failed after {}: zluda_precompile ended with {}", i + 1, total,
                                                                   r.file.filename(), zcuda::format_duration(r.seconds), r.ended));
      }
    };
    warmup::PrecompileOptions precompile_options;
    precompile_options.device = 0;
    precompile_options.cache = warmup::zluda_cache_folder(caches::live_inputs());
    auto results = warmup::precompile(*tool, scan.binaries, plan->environment, precompile_options, progress, &platform::interrupt_flag());
    if (!results) return std::unexpected(results.error());

    CommandOutput output;
    double seconds = 0;
    std::size_t failed = 0;
    output.json["runtime"] = {{"dir", zcuda::path_to_utf8(runtime->dir)}, {"chosen_by", std::string(launch::to_string(runtime->chosen_by))}};
    output.json["tool"] = zcuda::path_to_utf8(*tool);
    output.json["device"] = launch_options.device ? nlohmann::json(*launch_options.device) : nlohmann::json(nullptr);
    output.json["cache"] = zcuda::path_to_utf8(precompile_options.cache);
    output.json["not_read"] = scan.not_read;
    output.json["files"] = nlohmann::json::array();
    for (const auto& r : *results) {
      seconds += r.seconds;
      failed += r.ok ? 0 : 1;
      output.json["files"].push_back(warmup::to_json(r));
    }
    output.json["seconds"] = seconds;
    output.json["failed"] = failed;
    output.text = fmt::format("Warmed up {} of {} file(s) in {}.\n", results->size() - failed, results->size(), zcuda::format_duration(seconds));
    for (const auto& r : *results) {
      if (r.ok) continue;
      output.text += fmt::format("  failed: {} ({})\n", r.file, r.ended);
      if (!r.output.empty()) output.text += "    " + r.output.substr(0, r.output.find_last_not_of("\r\n") + 1) + "\n";
    }
    for (const auto& skipped : scan.not_read) output.text += fmt::format("  not read by zluda_precompile: {}\n", skipped);
    if (failed > 0) output.exit_code = 1;
    return output;
  };
}

}  // namespace zcuda::cli
