#pragma once
// `zcuda warmup`: compile a program's CUDA kernels into ZLUDA's cache ahead of its first run, with
// ZLUDA's own zluda_precompile, so that run does not sit for minutes looking hung. Also the check
// behind run's "the first run may compile for a long time" notice (docs/caches.md).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zcuda/caches/caches.hpp>
#include <zcuda/base/error.hpp>
#include <zcuda/platform/folder_listing.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::warmup {

// The folders a program loads CUDA libraries from: its own folder and, for PyTorch-style
// layouts, lib/ and torch/lib/ under it, and ../lib beside a bin/ folder. Existing ones only.
std::vector<std::filesystem::path> search_folders(const std::filesystem::path& app_or_folder);

struct Scan {
  std::vector<std::filesystem::path> folders;   // searched
  std::vector<std::filesystem::path> binaries;  // carrying CUDA device code that zluda_precompile reads, sorted, each once
  std::vector<std::string> unreadable;          // files that claim to be PE/ELF but are not sound
  std::vector<std::string> not_read;            // device code zluda_precompile does not read (fatbin/cubin files, ELF32), with why
};

// Whether zluda_precompile reads this file at all: it opens PE files ("MZ") and 64-bit ELF files
// only (zluda_precompile/src/main.rs parses every ELF as ELF64); nullopt when it does, else why not.
std::optional<std::string> precompile_skips(const std::filesystem::path& file);

// The files in those folders (not their subfolders) that carry an embedded fatbin: the program
// itself, and files named as programs or libraries (.exe, .dll, .so, .so.N; .fatbin and .cubin
// files are looked at only to say they are not read). `limit` stops the search after that many
// found (run's notice needs one).
// `listings`: where a launch keeps the folders it listed (nothing: list now).
Scan find_cuda_binaries(const std::filesystem::path& app_or_folder, std::size_t limit = SIZE_MAX, platform::FolderListings* listings = nullptr);

// ZLUDA's zluda_precompile beside its libraries; environment error when this build lacks it.
Result<std::filesystem::path> find_precompile(const std::filesystem::path& runtime_dir, platform::Os os);

struct FileResult {
  std::filesystem::path file;
  bool ok = false;             // it exited 0 and ZLUDA's kernel cache changed
  bool cache_changed = false;  // any file of ZLUDA's kernel cache was written while it ran
  std::string ended;           // how zluda_precompile ended ("exit code 3", or that the cache did not change); empty when it succeeded
  std::string output;          // the last lines of what it printed
  double seconds = 0;
};

struct Progress {
  std::function<void(std::size_t index, std::size_t total, const std::filesystem::path& file)> started;
  std::function<void(std::size_t index, std::size_t total, const FileResult& result)> finished;
};

struct PrecompileOptions {
  // zluda_precompile's -d/--device: the CUDA device among those visible (HIP_VISIBLE_DEVICES in
  // the environment narrows them as it does for `run`); its own default is 0.
  unsigned device = 0;
  // ZLUDA's kernel cache folder (zluda/ComputeCache: one SQLite database, zluda2.db, and its
  // journal). zluda_precompile exits 0 whatever happened per module and prints only a progress
  // bar on a terminal, so a file's verdict is whether this folder changed while it ran: ZLUDA
  // writes a compiled module there, and updates a cached one's last use. Empty (no user cache
  // folder): the exit code alone decides.
  std::filesystem::path cache;
};

// Runs `tool --device N FILE` for each file in turn. Stops early (error kind interrupted) when `cancel` is set.
Result<std::vector<FileResult>> precompile(const std::filesystem::path& tool, const std::vector<std::filesystem::path>& files,
                                           const platform::Environment& environment, const PrecompileOptions& options, const Progress& progress,
                                           const std::atomic<bool>* cancel = nullptr);

// The folder of ZLUDA's kernel cache among caches::locate's answers.
std::filesystem::path zluda_cache_folder(const caches::Inputs& inputs);

nlohmann::json to_json(const FileResult& result);

// When a runtime's files last changed (seconds since 1970): its folder and its driver library, which
// an install writes both. nullopt when none can be read.
std::optional<std::int64_t> runtime_time(const std::filesystem::path& runtime_dir);

// run's notice: when the program's folder holds CUDA binaries and ZLUDA's compute cache is
// missing, empty, or older than the runtime's files, the line to print; nullopt otherwise.
std::optional<std::string> first_run_notice(const std::filesystem::path& target, const std::filesystem::path& runtime_dir,
                                            const caches::Inputs& inputs, platform::FolderListings* listings = nullptr);
std::optional<std::string> first_run_notice(const std::filesystem::path& target, const std::filesystem::path& runtime_dir,
                                            platform::FolderListings* listings = nullptr);

}  // namespace zcuda::warmup
