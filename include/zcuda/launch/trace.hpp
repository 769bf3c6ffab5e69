#pragma once
// `zcuda run --trace`: where ZLUDA's trace libraries (zluda_trace) write, and which files a run
// wrote there. zluda_trace writes into <ZLUDA_LOG_DIR>/<the program's file name>, or
// <name>_1, <name>_2 ... when that folder exists already (zluda_trace/src/lib.rs,
// create_trace_directory: std::env::current_exe()'s file_name(), so with ".exe" on Windows).
// Windows' zluda.exe --zluda-trace sets ZLUDA_LOG_DIR=%TEMP%\zluda, a folder every traced run
// shares; on Linux zcuda gives each run a folder of its own.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/platform/os.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::launch {

// The ZLUDA_LOG_DIR zluda.exe --zluda-trace gives a program started with `env`: <temp>\zluda,
// where <temp> is what Rust's std::env::temp_dir() answers on Windows (GetTempPath2W): TMP, else
// TEMP, else USERPROFILE, else the Windows folder.
std::filesystem::path windows_trace_log_dir(const platform::Environment& env);

// Whether `folder`, a folder right under ZLUDA_LOG_DIR, is one zluda_trace makes for a program
// named `program` (file name): the name itself or the name, "_" and a number. Windows compares
// without regard to case, as its file systems do.
bool is_program_trace_folder(std::string_view folder, std::string_view program, platform::Os os);

struct FileStamp {
  std::uintmax_t size = 0;
  std::int64_t modified = 0;  // file_time_type ticks: only compared, never shown
  bool operator==(const FileStamp&) const = default;
};
using TraceSnapshot = std::map<std::filesystem::path, FileStamp>;

// The files under `dir` (all of them, or with `program` only those in that program's folders)
// with their size and modification time; a missing folder is an empty snapshot.
TraceSnapshot snapshot_traces(const std::filesystem::path& dir, const std::optional<std::string>& program, platform::Os os);

// The run's traces: the files of `after` that `before` did not have, or had with another size or
// time, sorted by path.
std::vector<std::filesystem::path> new_trace_files(const TraceSnapshot& before, const TraceSnapshot& after);

}  // namespace zcuda::launch
