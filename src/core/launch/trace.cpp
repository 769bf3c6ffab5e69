// Where zluda_trace writes, and the snapshot of that folder that tells a run's traces apart.
#include <zcuda/launch/trace.hpp>

#include <algorithm>
#include <cctype>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;

fs::path windows_trace_log_dir(const platform::Environment& env) {
  for (const char* name : {"TMP", "TEMP", "USERPROFILE"}) {
    if (auto key = platform::variable_key(env, name, platform::Os::windows); key && !env.at(*key).empty()) {
      return zcuda::path_from_utf8(env.at(*key)) / "zluda";
    }
  }
  auto root = platform::variable_key(env, "SystemRoot", platform::Os::windows);
  return zcuda::path_from_utf8(root && !env.at(*root).empty() ? env.at(*root) : std::string("C:\\Windows")) / "zluda";
}

bool is_program_trace_folder(std::string_view folder, std::string_view program, platform::Os os) {
  if (program.empty() || folder.size() < program.size()) return false;
  const std::string_view name = folder.substr(0, program.size());
  if (os == platform::Os::windows ? !ascii_iequals(name, program) : name != program) return false;
  const std::string_view rest = folder.substr(program.size());
  if (rest.empty()) return true;
  return rest.size() > 1 && rest.front() == '_' &&
         std::all_of(rest.begin() + 1, rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

TraceSnapshot snapshot_traces(const fs::path& dir, const std::optional<std::string>& program, platform::Os os) {
  TraceSnapshot snapshot;
  std::error_code ec;
  for (fs::directory_iterator top(dir, ec), end; !ec && top != end; top.increment(ec)) {
    if (program && !is_program_trace_folder(zcuda::path_to_utf8(top->path().filename()), *program, os)) continue;
    auto note = [&](const fs::directory_entry& entry) {
      std::error_code fec;
      if (!entry.is_regular_file(fec)) return;
      FileStamp stamp;
      stamp.size = entry.file_size(fec);
      if (fec) return;
      stamp.modified = static_cast<std::int64_t>(entry.last_write_time(fec).time_since_epoch().count());
      if (fec) return;
      snapshot[entry.path()] = stamp;
    };
    std::error_code tec;
    if (top->is_directory(tec)) {
      for (fs::recursive_directory_iterator it(top->path(), fs::directory_options::skip_permission_denied, tec), rend; !tec && it != rend;
           it.increment(tec)) {
        note(*it);
      }
    } else if (!program) {
      note(*top);
    }
  }
  return snapshot;
}

std::vector<fs::path> new_trace_files(const TraceSnapshot& before, const TraceSnapshot& after) {
  std::vector<fs::path> files;
  for (const auto& [path, stamp] : after) {
    auto it = before.find(path);
    if (it == before.end() || !(it->second == stamp)) files.push_back(path);
  }
  return files;  // std::map: already sorted
}

}  // namespace zcuda::launch
