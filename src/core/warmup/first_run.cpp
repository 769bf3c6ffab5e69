// Whether a program's first run through this runtime is likely to compile kernels for minutes:
// it carries CUDA device code and ZLUDA's compute cache has nothing written since this runtime
// arrived (ZLUDA keys its cache by its own build, so a new build starts over).
#include <chrono>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>
#include <zcuda/warmup/warmup.hpp>

namespace zcuda::warmup {

namespace fs = std::filesystem;

std::optional<std::int64_t> runtime_time(const fs::path& runtime_dir) {
  std::optional<std::int64_t> newest;
  for (const fs::path& p : {runtime_dir, runtime_dir / "nvcuda.dll", runtime_dir / "libcuda.so.1"}) {
    std::error_code ec;
    const auto t = fs::last_write_time(p, ec);
    if (ec) continue;
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(t).time_since_epoch()).count();
    if (!newest || s > *newest) newest = s;
  }
  return newest;
}

std::optional<std::string> first_run_notice(const fs::path& target, const fs::path& runtime_dir, const caches::Inputs& inputs,
                                            platform::FolderListings* listings) {
  std::optional<caches::Written> cache;
  const auto built = runtime_time(runtime_dir);
  for (const auto& folder : caches::locate(inputs)) {
    if (folder.name == "zluda") cache = caches::written_since(folder, built);
  }
  std::string why;
  if (!cache || !cache->any) {
    why = "ZLUDA's kernel cache is empty";
  } else if (!cache->since) {
    why = "ZLUDA's kernel cache is older than this ZLUDA";
  } else {
    return std::nullopt;
  }
  // Only now read the program's files: the common case (a warm cache) costs no scan.
  const auto scan = find_cuda_binaries(target, 1, listings);
  if (scan.binaries.empty()) return std::nullopt;
  return fmt::format(
      "{}, so the first run may compile GPU kernels for minutes before it shows progress; "
      "'zcuda warmup {}' compiles them ahead of time",
      why, target);
}

std::optional<std::string> first_run_notice(const fs::path& target, const fs::path& runtime_dir, platform::FolderListings* listings) {
  return first_run_notice(target, runtime_dir, caches::live_inputs(), listings);
}

}  // namespace zcuda::warmup
