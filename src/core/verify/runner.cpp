#include <zcuda/base/path_text.hpp>
#include <zcuda/verify/verify.hpp>

#include <zcuda/base/sha256.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/runtime_launch.hpp>

namespace zcuda::verify {
namespace {

std::string utc_now() {
  using namespace std::chrono;
  const auto now = floor<seconds>(system_clock::now());
  const auto day = floor<days>(now);
  const year_month_day ymd{day};
  const hh_mm_ss hms{now - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

Result<std::vector<const CheckSpec*>> select(const std::vector<std::string>& names) {
  std::vector<const CheckSpec*> out;
  if (names.empty()) {
    for (const auto& c : checks()) out.push_back(&c);
    return out;
  }
  std::set<std::string> wanted;
  for (const auto& n : names) {
    if (find_check(n) == nullptr) {
      std::string known;
      for (const auto& c : checks()) known += (known.empty() ? "" : ", ") + c.name;
      return fail(ErrorKind::usage, "Unknown check '" + n + "'", "Known checks: " + known + ".");
    }
    wanted.insert(n);
  }
  for (const auto& c : checks()) {
    if (wanted.count(c.name)) out.push_back(&c);  // table order, each once
  }
  return out;
}

// Runs `work(i)` for i in [0, count) on up to `jobs` threads.
template <class Work>
void parallel_for(std::size_t count, int jobs, Work&& work) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::jthread> threads;
  const auto n = std::min<std::size_t>(count, static_cast<std::size_t>(std::max(1, jobs)));
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
}

// Through zluda.exe, the program and its arguments are encoded for how the launcher passes them.
void encode_for_launcher(platform::RuntimeLaunch& launch, const std::optional<launch::LauncherJoin>& join) {
  if (!join || launch.method() != platform::LaunchMethod::zluda_exe) return;
  launch.set_launcher_encoder([join = *join](const std::string& program, const std::vector<std::string>& args) {
    auto encoded = launch::launcher_arguments(join, program, args);
    if (encoded) return *encoded;
    // run() refused before any start when the probe's arguments cannot be carried.
    std::vector<std::string> as_given = {program};
    as_given.insert(as_given.end(), args.begin(), args.end());
    return as_given;
  });
}

std::optional<CudaCheck> run_cuda_check(const Runtime& runtime, std::chrono::seconds timeout, const std::optional<launch::LauncherJoin>& join) {
  // ZLUDA builds cuda_check for Windows only (cuda_check/Cargo.toml: windows_only): a file of
  // that name in a Linux runtime is not ZLUDA's.
  if (!runtime.dir || platform::current_os() != platform::Os::windows) return std::nullopt;
  const auto program = *runtime.dir / "cuda_check.exe";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(program, ec)) return std::nullopt;
  CudaCheck result{program, {}, {}};
  auto launch = platform::RuntimeLaunch::prepare(program, runtime.dir);
  if (!launch) {
    result.outcome = "could not be prepared: " + launch.error().message;
    return result;
  }
  encode_for_launcher(*launch, join);
  auto spec = launch->spec({});
  spec.streams = platform::StreamMode::capture;
  spec.timeout = std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(30));  // it can hang in MIOpen
  spec.working_dir = *runtime.dir;
  auto done = platform::run_process(spec);
  if (!done) {
    result.outcome = "could not start: " + done.error().message;
    return result;
  }
  result.outcome = platform::describe_exit(*done);
  std::size_t start = 0;
  const auto& out = done->out;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    auto line = out.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) result.lines.push_back(line);
    start = end + 1;
  }
  return result;
}

}  // namespace

std::optional<family::Identity> runtime_family(const Runtime& runtime) {
  if (!runtime.dir) return std::nullopt;
  launch::RuntimeLocation location{*runtime.dir, launch::RuntimeChoice::runtime_dir_flag, std::nullopt};
  if (runtime.kind == RuntimeKind::zluda) location = {*runtime.dir, launch::RuntimeChoice::installed, runtime.version};
  return launch::runtime_family(location, platform::current_os());
}

Result<Report> run(const Options& options) {
  auto selected = select(options.checks);
  if (!selected) return std::unexpected(selected.error());
  auto launch = platform::RuntimeLaunch::prepare(options.probe, options.runtime.dir);
  if (!launch) return std::unexpected(launch.error());
  if (options.launcher_join && launch->method() == platform::LaunchMethod::zluda_exe) {
    // The most a probe process is given: two checks and the watchdog.
    auto carried =
        launch::launcher_arguments(*options.launcher_join, zcuda::path_to_utf8(options.probe), {"--check", "a", "--check", "b", "--watchdog", "60"});
    if (!carried) return std::unexpected(std::move(carried.error()).with_note("zcuda verify starts zcuda-probe through zluda.exe"));
    encode_for_launcher(*launch, options.launcher_join);
  }

  Report report;
  report.started_utc = utc_now();
  report.runtime = options.runtime;
  report.runtime_family = runtime_family(options.runtime);
  report.launch_method = launch->method();
  report.probe = options.probe;
  report.timeout = options.timeout;
  report.jobs = std::max(1, options.jobs);
  report.explicit_selection = !options.checks.empty();
  const auto started = std::chrono::steady_clock::now();

  std::map<std::string, CheckResult> results;
  // Checks whose library would open ZLUDA's modal "failed to load" dialog are not started.
  std::vector<const CheckSpec*> to_run;
  for (const auto* spec : *selected) {
    const std::string role = launch::cuda_role_of_check(spec->name);
    auto dialog =
        std::find_if(options.load_dialogs.begin(), options.load_dialogs.end(), [&](const launch::LoadDialog& d) { return d.cuda_role == role; });
    if (role.empty() || dialog == options.load_dialogs.end()) {
      to_run.push_back(spec);
      continue;
    }
    CheckResult skipped;
    skipped.name = spec->name;
    skipped.core = spec->core;
    skipped.status = CheckStatus::missing;
    skipped.detail = fmt::format("not started: {} (predicted by detection: {} is not installed)", launch::describe(*dialog), dialog->library);
    results[spec->name] = std::move(skipped);
  }
  std::optional<Error> start_error;
  std::mutex mutex;
  // One probe process for the unit's checks. Several share a process only under the probe's
  // per-check watchdog, and with a process timeout that gives each its full time.
  auto run_unit = [&](const std::vector<const CheckSpec*>& unit) -> UnitOutcome {
    std::vector<std::string> args;
    for (const auto* spec : unit) {
      args.push_back("--check");
      args.push_back(spec->name);
    }
    auto process_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout);
    if (unit.size() > 1) {
      args.push_back("--watchdog");
      args.push_back(std::to_string(options.timeout.count()));
      process_timeout = process_timeout * static_cast<long>(unit.size()) + std::chrono::seconds(5);
    }
    auto process_spec = launch->spec(args);
    process_spec.streams = platform::StreamMode::capture;
    process_spec.timeout = process_timeout;
    spdlog::debug("verify: starting {} check(s) from {} ({})", unit.size(), unit.front()->name, path_to_utf8(options.probe));
    auto done = platform::run_process(process_spec);
    if (!done) {
      std::lock_guard lock(mutex);
      if (!start_error) start_error = done.error();
      return {};
    }
    if (unit.size() == 1) return UnitOutcome{{interpret(*unit.front(), *done, options.timeout)}, {}, {}};
    return interpret_unit(unit, *done, options.timeout);
  };
  auto record = [&](UnitOutcome& outcome) {
    for (auto& r : outcome.results) {
      spdlog::debug("verify: {} -> {} in {:.2f} s", r.name, to_string(r.status), r.seconds);
      results[r.name] = std::move(r);
    }
  };

  // Checks that measure time or bandwidth run alone, first; the others share the GPU, --jobs
  // processes at a time. A unit that crashed or hung hands the checks it did not reach back,
  // each to run alone.
  std::deque<std::vector<const CheckSpec*>> queue;
  for (const auto& unit : schedule(to_run)) {
    if (!unit.exclusive) {
      queue.push_back(unit.checks);
      continue;
    }
    auto outcome = run_unit(unit.checks);
    if (start_error) return std::unexpected(*start_error);
    record(outcome);
  }
  std::size_t active = 0;
  std::condition_variable changed;
  auto worker = [&] {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return !queue.empty() || active == 0 || start_error.has_value(); });
      if (start_error || queue.empty()) {
        changed.notify_all();
        return;
      }
      auto unit = std::move(queue.front());
      queue.pop_front();
      ++active;
      lock.unlock();
      auto outcome = run_unit(unit);
      lock.lock();
      --active;
      record(outcome);
      if (!outcome.rerun_together.empty()) queue.push_back(outcome.rerun_together);
      for (const auto* spec : outcome.rerun_alone) queue.push_back({spec});
      changed.notify_all();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int t = 1; t < report.jobs; ++t) threads.emplace_back(worker);
    worker();
  }
  if (start_error) return std::unexpected(*start_error);
  for (const auto* spec : *selected) report.checks.push_back(std::move(results.at(spec->name)));
  // A hang in a role with such a dialog may be the dialog itself (the prediction can miss: a
  // library present but unloadable opens it too).
  if (platform::current_os() == platform::Os::windows) {
    for (auto& c : report.checks) {
      const std::string role = launch::cuda_role_of_check(c.name);
      if (c.status != CheckStatus::timeout || role.empty()) continue;
      for (const auto& d : launch::load_dialogs()) {
        if (d.cuda_role == role) c.detail += fmt::format("; {}: look for that window", launch::describe(d));
      }
    }
  }

  // Each distinct library file is digested once, however many checks loaded it.
  std::map<std::string, std::string> digests;
  for (const auto& c : report.checks) {
    for (const auto& lib : c.libraries) digests[lib.real_path.empty() ? lib.path : lib.real_path];
  }
  std::vector<std::map<std::string, std::string>::iterator> pending;
  for (auto it = digests.begin(); it != digests.end(); ++it) pending.push_back(it);
  parallel_for(pending.size(), report.jobs, [&](std::size_t k) {
    auto digest = sha256_file(path_from_utf8(pending[k]->first));
    if (digest) pending[k]->second = *digest;  // each thread writes its own entry
  });
  for (auto& c : report.checks) {
    for (auto& lib : c.libraries) lib.sha256 = digests[lib.real_path.empty() ? lib.path : lib.real_path];
  }

  report.cuda_check = run_cuda_check(options.runtime, options.timeout, options.launcher_join);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace zcuda::verify
