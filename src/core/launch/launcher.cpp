// Learning and remembering how a zluda.exe joins its target's arguments (launcher.hpp).
#include <zcuda/launch/launcher.hpp>

#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/base/json_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/base/record.hpp>
#include <zcuda/base/sha256.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/launch/probe_location.hpp>

namespace zcuda::launch {

namespace fs = std::filesystem;
using nlohmann::json;

void to_json(json& out, const LauncherRecord& r) {
  out = {{"schema", kLauncherRecordSchema}, {"sha256", r.sha256},       {"join", std::string(to_string(r.join))},
         {"learned_utc", r.learned_utc},    {"zcuda", r.zcuda_version}, {"sent", r.sent},
         {"received", r.received}};
}

void from_json(const json& in, LauncherRecord& r) {
  if (const int schema = in.at("schema").get<int>(); schema != kLauncherRecordSchema) {
    throw json::other_error::create(501, fmt::format("launcher record schema {} (this zcuda reads {})", schema, kLauncherRecordSchema), &in);
  }
  r.sha256 = in.at("sha256").get<std::string>();
  const auto join = launcher_join_from_string(in.at("join").get<std::string>());
  if (!join) throw json::other_error::create(501, "unknown launcher join " + in.at("join").get<std::string>(), &in);
  r.join = *join;
  r.learned_utc = in.at("learned_utc").get<std::string>();
  r.zcuda_version = in.at("zcuda").get<std::string>();
  r.sent = in.at("sent").get<std::vector<std::string>>();
  r.received = in.at("received").get<std::vector<std::string>>();
}

fs::path launcher_record_path(const fs::path& state_dir, const std::string& sha256) { return state_dir / "launchers" / (sha256 + ".json"); }

std::optional<std::vector<std::string>> parse_echo_output(std::string_view out) {
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string_view::npos) end = out.size();
    const auto line = out.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with("{\"echo_argv\":")) continue;
    auto parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.contains("echo_argv") || !parsed["echo_argv"].is_array()) continue;
    std::vector<std::string> args;
    for (const auto& a : parsed["echo_argv"]) {
      if (!a.is_string()) return std::nullopt;
      args.push_back(a.get<std::string>());
    }
    return args;
  }
  return std::nullopt;
}

Result<LauncherRecord> learn_launcher(const fs::path& zluda_exe, const fs::path& echo_program) {
  const std::string program = zcuda::path_to_utf8(echo_program);
  platform::ProcessSpec spec;
  spec.program = zluda_exe;
  spec.args = {"--", program};
  const auto& sample = echo_sample_arguments();
  spec.args.insert(spec.args.end(), sample.begin(), sample.end());
  auto environment = platform::current_environment();
  environment[kEchoArgvVariable] = "1";
  spec.environment = environment;
  spec.streams = platform::StreamMode::capture;
  spec.timeout = std::chrono::seconds(60);
  auto ran = platform::run_process(spec);
  if (!ran) return std::unexpected(std::move(ran.error()).with_note("while learning how zluda.exe passes arguments"));
  auto received = parse_echo_output(ran->out);
  if (!received) {
    std::string tail = ran->err.size() > 600 ? ran->err.substr(ran->err.size() - 600) : ran->err;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    return fail(ErrorKind::environment,
                fmt::format("{} ended ({}) without starting the program it was given (zcuda-probe, to learn how it passes "
                            "arguments){}",
                            zluda_exe, platform::describe_exit(*ran), tail.empty() ? "" : ": " + tail),
                "Check that the launcher runs at all (antivirus may block zluda.exe or zluda_redirect.dll), or launch without "
                "it: zcuda run --direct ...");
  }
  auto join = classify_echo(program, sample, *received);
  if (!join) {
    return fail(ErrorKind::unsupported,
                fmt::format("{} passes arguments in a way zcuda does not know (sent {}, received {})", zluda_exe, json(sample).dump(),
                            json(*received).dump()),
                "Launch without ZLUDA's launcher: zcuda run --direct ...");
  }
  auto digest = zcuda::sha256_file(zluda_exe);
  if (!digest) return std::unexpected(digest.error());
  LauncherRecord record;
  record.sha256 = *digest;
  record.join = *join;
  record.learned_utc = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  record.zcuda_version = std::string(version());
  record.sent = sample;
  record.received = *received;
  return record;
}

Result<LauncherJoin> known_launcher_join(const fs::path& zluda_exe, const fs::path& echo_program, const std::optional<fs::path>& state_dir) {
  auto digest = zcuda::sha256_file(zluda_exe);
  if (!digest) return std::unexpected(digest.error());
  if (state_dir) {
    const auto file = launcher_record_path(*state_dir, *digest);
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) {
      if (auto text = platform::read_file(file, 1u << 20)) {
        // A damaged record is learned again rather than trusted.
        if (auto kept = parse_record_text<LauncherRecord>(*text, "launcher record"); kept && kept->sha256 == *digest) return kept->join;
      }
    }
  }
  auto learned = learn_launcher(zluda_exe, echo_program);
  if (!learned) return std::unexpected(learned.error());
  if (state_dir) {
    const auto file = launcher_record_path(*state_dir, learned->sha256);
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    // Not keeping it only costs learning again next time.
    if (!ec) (void)platform::write_file_atomic(file, json_text(json(*learned)) + "\n");
  }
  return learned->join;
}

Result<std::vector<std::string>> launcher_command(LauncherJoin join, const std::vector<std::string>& flags, std::string_view program,
                                                  const std::vector<std::string>& args) {
  auto encoded = launcher_arguments(join, program, args);
  if (!encoded) return std::unexpected(encoded.error());
  std::vector<std::string> out = flags;
  out.push_back("--");
  out.insert(out.end(), encoded->begin(), encoded->end());
  return out;
}

Result<std::optional<LauncherJoin>> launcher_join_for_runtime(const fs::path& runtime_dir, const std::optional<fs::path>& state_dir,
                                                              platform::Os os) {
  const fs::path launcher = runtime_dir / "zluda.exe";
  std::error_code ec;
  if (os != platform::Os::windows || runtime_dir.empty() || !fs::is_regular_file(launcher, ec)) return std::optional<LauncherJoin>{};
  // The echo target is verify's own worker, which ships beside zcuda.
  auto probe = find_probe();
  if (!probe) return std::unexpected(std::move(probe.error()).with_note("zcuda needs it to learn how zluda.exe passes arguments"));
  auto join = known_launcher_join(launcher, *probe, state_dir);
  if (!join) return std::unexpected(join.error());
  return std::optional<LauncherJoin>(*join);
}

Status learn_launcher_join(Options& options, const std::optional<fs::path>& state_dir) {
  if (options.direct) return {};
  auto join = launcher_join_for_runtime(options.runtime.dir, state_dir, options.os);
  if (!join) return std::unexpected(join.error());
  options.launcher_join = *join;
  return {};
}

}  // namespace zcuda::launch
