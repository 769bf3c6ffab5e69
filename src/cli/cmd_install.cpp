// zcuda install: fetch, verify and install the pinned artifacts (docs/cli/install.md).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/install/adopt.hpp>
#include <zcuda/install/install.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/manifest/manifest.hpp>
#include <zcuda/platform/interrupt.hpp>
#include <zcuda/platform/terminal.hpp>
#include <zcuda/ui/progress.hpp>
#include <zcuda/base/units.hpp>

#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct InstallArgs {
  std::optional<std::filesystem::path> manifest;
  std::string channel = "stable";
  bool with_libtorch = false;
  std::string os;
  std::optional<std::filesystem::path> from;
  std::optional<std::filesystem::path> cacert;
  bool dry_run = false;
  bool repair = false;
  std::string remove;
  bool no_wait = false;
  std::vector<std::string> only;
  std::optional<std::filesystem::path> adopt;
  std::string name;
  std::string url;
  std::string sha256;
  std::uint64_t max_size_mib = 2048;
  bool list = false;
};

std::string grouped(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

std::string size_text(std::optional<std::uint64_t> size) {
  if (!size) return "not published (the digest alone pins it; the download may have at most --max-size MiB)";
  return fmt::format("{} ({} bytes)", format_bytes(*size), grouped(*size));
}

// One progress line on a terminal (ui::ProgressLine draws nothing elsewhere).
std::function<void(const fetch::Progress&)> progress_printer() {
  auto line = std::make_shared<ui::ProgressLine>(stderr);
  if (!line->enabled()) return {};
  return [line](const fetch::Progress& p) {
    const auto slash = p.url.find_last_of("/\\");
    const std::string label = slash == std::string::npos ? p.url : p.url.substr(slash + 1);
    const bool done = p.total && p.received >= *p.total;
    line->update(label, p.received, p.total, p.bytes_per_second, done);
    if (done) line->finish();
  };
}

std::string state_label(const ui::Style& style, install::State state) {
  switch (state) {
    case install::State::installed:
      return style.green("installed        ");
    case install::State::already_installed:
      return style.green("already installed");
    case install::State::repaired:
      return style.yellow("repaired         ");
    case install::State::removed:
      return style.green("removed          ");
    case install::State::planned:
      return style.cyan("planned          ");
    case install::State::skipped:
      return style.dim("skipped          ");
    case install::State::failed:
      return style.red("failed           ");
  }
  return "";
}

std::string render_dry_run(const ui::Style& style, const install::Plan& plan, const install::Report& report) {
  std::string text = fmt::format("Plan for {}, channel {} (manifest: {})\n", platform::os_id(plan.os), manifest::to_string(plan.channel),
                                 plan.manifest_origin == "embedded" ? "built-in" : plan.manifest_origin);
  for (const auto& o : report.outcomes) {
    if (o.state == install::State::skipped) {
      text += fmt::format("  {} {} {}: {}\n", state_label(style, o.state), o.component, o.version, o.reason);
      continue;
    }
    text += fmt::format("  {} {} {}  [{}]  {}\n", state_label(style, o.state), style.bold(o.component), o.version, o.id, o.reason);
    text += fmt::format("      url      {}\n      size     {}\n      sha256   {}\n      into     {}\n      license  {}\n", o.url, size_text(o.size),
                        o.sha256, path_to_utf8(o.destination), o.license);
  }
  text += "Dry run: nothing was downloaded or written.\n";
  return text;
}

std::string render_report(const ui::Style& style, const install::Report& report) {
  std::string text;
  for (const auto& o : report.outcomes) {
    text += fmt::format("{} {} {}", state_label(style, o.state), style.bold(o.component), o.version);
    switch (o.state) {
      case install::State::installed:
      case install::State::repaired:
        text += fmt::format(" -> {} ({} entries, {}; {} in {})\n", path_to_utf8(o.destination), o.files, format_bytes(o.bytes),
                            o.from_cache ? "archive from the cache" : fmt::format("fetched {}", format_bytes(o.bytes_transferred)),
                            format_duration(o.total_seconds));
        if (!o.reason.empty()) text += fmt::format("    {}\n", o.reason);
        break;
      case install::State::already_installed:
      case install::State::removed:
        text += fmt::format(" ({})\n", o.reason.empty() ? path_to_utf8(o.destination) : o.reason);
        break;
      case install::State::skipped:
        text += fmt::format(": {}\n", o.reason);
        break;
      case install::State::planned:
        text += fmt::format(": {}\n", o.reason);
        break;
      case install::State::failed:
        text += fmt::format(": {}\n", o.error ? o.error->message : "failed");
        if (o.error) {
          for (const auto& note : o.error->notes) text += "    " + ui::notice_text(style, ui::NoticeKind::note, note) + "\n";
          if (!o.error->hint.empty()) text += "    " + ui::notice_text(style, ui::NoticeKind::hint, o.error->hint) + "\n";
        }
        break;
    }
  }
  return text;
}

nlohmann::json report_json(const install::Report& report, bool dry_run) {
  nlohmann::json artifacts = nlohmann::json::array();
  for (const auto& o : report.outcomes) artifacts.push_back(install::to_json(o));
  return {{"dry_run", dry_run}, {"artifacts", std::move(artifacts)}};
}

Result<CommandOutput> run_adopt(Context& context, const std::filesystem::path& dir, const std::string& name) {
  auto adopted = install::adopt(dir, name, context.home, platform::current_os());
  if (!adopted) return std::unexpected(adopted.error());
  const auto& a = *adopted;
  CommandOutput out;
  out.json = {{"adopted", a.name},
              {"dir", path_to_utf8(a.dir)},
              {"family", family::to_json(a.identity)},
              {"files", a.receipt.files.size()},
              {"bytes", install::total_bytes(a.receipt)}};
  out.text = fmt::format("{} {} -> {} ({} entries, {}; family {}{})\n", context.style.green("adopted"), context.style.bold(a.name),
                         path_to_utf8(a.dir), a.receipt.files.size(), format_bytes(install::total_bytes(a.receipt)),
                         family::to_string(a.identity.family), a.identity.release ? ", " + *a.identity.release : std::string());
  out.text +=
      fmt::format("    Use it with --runtime {} (run, stage, warmup, verify, bench); nothing was copied and the folder is left as it is.\n", a.name);
  return out;
}

Result<install::Plan> pinned_plan(const Context& context, const InstallArgs& args) {
  auto manifest = args.manifest ? manifest::load_file(*args.manifest) : manifest::load_embedded();
  if (!manifest) return std::unexpected(manifest.error());
  install::Selection selection;
  // CLI11 checked both words (IsMember).
  if (!args.os.empty()) selection.os = platform::os_from_id(args.os).value_or(platform::current_os());
  selection.channel = manifest::channel_from_word(args.channel).value_or(manifest::Channel::stable);
  selection.with_libtorch = args.with_libtorch;
  selection.only = args.only;
  return install::make_plan(*manifest, selection, context.home);
}

Result<CommandOutput> run_list(Context& context, const InstallArgs& args) {
  auto manifest = args.manifest ? manifest::load_file(*args.manifest) : manifest::load_embedded();
  if (!manifest) return std::unexpected(manifest.error());
  const auto os = args.os.empty() ? platform::current_os() : platform::os_from_id(args.os).value_or(platform::current_os());
  const auto channel = manifest::channel_from_word(args.channel).value_or(manifest::Channel::stable);
  const auto items = install::list(context.home, *manifest, channel, os);
  CommandOutput out;
  nlohmann::json runtimes = nlohmann::json::array();
  for (const auto& item : items) runtimes.push_back(install::to_json(item));
  out.json = {{"channel", manifest::to_string(channel)}, {"os", platform::os_id(os)}, {"runtimes", std::move(runtimes)}};
  if (!args.manifest) out.json["knowledge"] = knowledge::to_json(knowledge::active());
  if (items.empty()) out.text = "Nothing is installed, and the manifest pins nothing for this OS and channel.\n";
  for (const auto& item : items) {
    const bool missing = item.how == install::Provenance::not_installed;
    out.text += fmt::format("{:<9} {:<24} {:<21} {:<12} {:<8} {}\n", item.component, context.style.bold(item.version),
                            missing ? std::string("pinned, not installed") : std::string(install::to_string(item.how)),
                            item.family.empty() ? "-" : item.family, item.current ? context.style.green("current") : "",
                            missing ? fmt::format("(zcuda install --only {})", item.id) : path_to_utf8(item.dir));
  }
  return out;
}

Result<CommandOutput> run_install(Context& context, const InstallArgs& args) {
  if (auto usable = require_home(context); !usable) return std::unexpected(usable.error());
  install::Options options;
  options.dry_run = args.dry_run;
  options.repair = args.repair;
  options.wait_for_lock = !args.no_wait;
  options.unpinned_max_bytes = args.max_size_mib << 20;
  options.fetch.ca_bundle = args.cacert;
  options.fetch.offline_dir = args.from;
  if (!args.dry_run) options.cancel = &platform::interrupt_flag();
  options.fetch.cancel = options.cancel;
  const bool chatty = !context.options.quiet;
  if (chatty) {
    options.on_notice = [notices = context.notices](const std::string& text) { notices.print(ui::NoticeKind::notice, text); };
    if (!context.options.json) options.fetch.on_progress = progress_printer();
  }

  if (!args.name.empty() && !args.adopt && args.url.empty()) {
    return fail(ErrorKind::usage, "--name names an adopted (--adopt) or user-vouched (--url) runtime", "Add --adopt DIR or --url URL --sha256 HEX.");
  }
  if (args.adopt) return run_adopt(context, *args.adopt, args.name);
  if (args.list) return run_list(context, args);
  if (!args.remove.empty()) {
    auto report = install::remove(args.remove, context.home, options);
    if (!report) return std::unexpected(report.error());
    CommandOutput out{report_json(*report, args.dry_run), render_report(context.style, *report), 0};
    if (report->first_error) out.exit_code = exit_code(report->first_error->kind);
    return out;
  }

  if (args.from) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*args.from, ec)) {
      return fail(ErrorKind::not_found, fmt::format("--from {}: no such folder", *args.from), "Name the folder that holds the downloaded files.");
    }
  }
  auto plan = args.url.empty() ? pinned_plan(context, args) : install::plan_vouched({args.url, args.sha256, args.name}, context.home);
  if (!plan) return std::unexpected(plan.error());

  auto report = install::run(*plan, context.home, options);
  if (!report) return std::unexpected(report.error());
  if (!args.url.empty() && !args.dry_run) {
    // What the user vouched for is identified once it is in place; the receipt keeps the family.
    for (const auto& o : report->outcomes) {
      if (o.state != install::State::installed && o.state != install::State::already_installed && o.state != install::State::repaired) continue;
      if (auto recorded = install::record_family(context.home, o.version, platform::current_os()); !recorded)
        return std::unexpected(recorded.error());
    }
  }
  CommandOutput out;
  out.json = report_json(*report, args.dry_run);
  out.json["os"] = platform::os_id(plan->os);
  out.json["channel"] = manifest::to_string(plan->channel);
  out.json["manifest"] = plan->manifest_origin;
  out.text = args.dry_run ? render_dry_run(context.style, *plan, *report) : render_report(context.style, *report);
  if (report->first_error) out.exit_code = exit_code(report->first_error->kind);
  return out;
}

}  // namespace

CommandRun setup_install(CLI::App& sub) {
  auto args = std::make_shared<InstallArgs>();
  add_path_option(sub, "--manifest", args->manifest, "Use this manifest instead of the built-in pinned one (docs/manifest-format.md)")
      ->check(kExistingFile);
  sub.add_option("--channel", args->channel, "ZLUDA channel: stable (v6) or latest (v7-preview.10, with the 32-bit launcher)")
      ->check(CLI::IsMember({"stable", "latest"}));
  sub.add_flag("--with-libtorch", args->with_libtorch, "Also install the optional LibTorch 2.3.0+cu118 (2.66 GB)");
  sub.add_option("--os", args->os, "Install the artifacts for this OS (default: this machine's)")->check(CLI::IsMember({"windows", "linux"}));
  add_path_option(sub, "--from", args->from, "Offline folder holding the downloads (found by file name or SHA-256)");
  add_path_option(sub, "--cacert", args->cacert, "CA bundle for HTTPS (default: CURL_CA_BUNDLE, else the system store)")->check(kExistingFile);
  sub.add_flag("--dry-run", args->dry_run, "Show each artifact's URL, size, SHA-256 and destination; change nothing");
  sub.add_flag("--repair", args->repair, "Re-hash every installed file and re-extract what differs");
  sub.add_option("--remove", args->remove, "Uninstall an artifact id (that version) or a component (all its versions)");
  sub.add_flag("--no-wait", args->no_wait, "Fail instead of waiting when another zcuda install is running");
  sub.add_option("--only", args->only, "Install only these artifact ids or components (repeatable)");
  auto* adopt = add_path_option(sub, "--adopt", args->adopt,
                                "Register the ZLUDA folder an application installed (hashes it; copies and changes nothing); use it by name");
  auto* url = sub.add_option("--url", args->url, "Install the archive at URL, which you vouch for with --sha256 (no pinned digest exists)");
  auto* sha256 = sub.add_option("--sha256", args->sha256, "With --url: the archive's SHA-256 (64 hex digits); other bytes are refused");
  url->needs(sha256);
  sha256->needs(url);
  sub.add_option("--max-size", args->max_size_mib,
                 "The most MiB a download without a published size may have: --url, or a pin whose publisher gives no size (default "
                 "2048); a larger one is refused")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  sub.add_option("--name", args->name,
                 "With --adopt or --url: the name to use it by (default: from its family and release, else the folder; the URL's file name)");
  for (auto* other : {"--remove", "--only", "--dry-run", "--repair", "--with-libtorch", "--from", "--manifest"})
    adopt->excludes(sub.get_option(other));
  for (auto* other : {"--remove", "--only", "--with-libtorch", "--manifest", "--channel", "--os"}) url->excludes(sub.get_option(other));
  url->excludes(adopt);
  auto* list =
      sub.add_flag("--list", args->list, "List installed, adopted and user-vouched runtimes, and the channel's pinned versions not installed");
  for (auto* other : {"--remove", "--only", "--dry-run", "--repair", "--with-libtorch", "--from"}) list->excludes(sub.get_option(other));
  list->excludes(adopt);
  list->excludes(url);
  return [args](Context& context) { return run_install(context, *args); };
}

}  // namespace zcuda::cli
