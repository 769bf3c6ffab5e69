// zcuda update: bring the knowledge bundle (pins, failures, profiles) up to date from the feed, a
// mirror or a folder; everything is verified before anything is used (docs/knowledge.md).
#include <fmt/format.h>

#include <zcuda/base/error_json.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/knowledge/update.hpp>
#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct UpdateFlags {
  std::string from;
  std::optional<std::string> feed;
  bool check = false;
  int max_time = 60;
  std::optional<std::filesystem::path> cacert;
};

std::string render(const knowledge::UpdateResult& r, bool check, const ui::Style& s) {
  if (r.up_to_date) return fmt::format("Knowledge bundle {} is in use; the feed has nothing newer.\n", r.from_version);
  std::string out = check ? fmt::format("Knowledge bundle {} is available (in use: {}). Nothing was changed; run without --check to install it.\n",
                                        r.to_version, r.from_version)
                          : s.green(fmt::format("Knowledge bundle {} installed", r.to_version)) +
                                fmt::format(" (was {}) in {}\n", r.from_version, path_to_utf8(r.location));
  if (r.changes.empty()) out += "  no entries changed\n";
  for (const auto& c : r.changes) out += fmt::format("  {} {}: {}\n", c.action, c.kind, c.id);
  return out;
}

}  // namespace

CommandRun setup_update(CLI::App& sub) {
  auto flags = std::make_shared<UpdateFlags>();
  sub.add_option("--from", flags->from, "A folder or URL holding a bundle (index.json, index.json.sig and its files): offline copies and mirrors")
      ->type_name("DIR|URL");
  sub.add_option("--feed", flags->feed, fmt::format("The feed URL (default: {}; the project publishes no feed yet)", knowledge::kFeedVariable))
      ->type_name("URL");
  sub.add_flag("--check", flags->check, "Say what is new; change nothing");
  sub.add_option("--max-time", flags->max_time, "Seconds each response may take (default 60)")->check(CLI::Range(1, 3600))->type_name("SECONDS");
  add_path_option(sub, "--cacert", flags->cacert, "CA certificates to trust for HTTPS (PEM file)")->type_name("FILE");
  sub.get_option("--from")->excludes("--feed");
  sub.footer(
      "Exit codes: 0 installed or nothing newer; refused, nothing changed: 15 untrusted key, 16 bad signature, 17 rollback, 18 expired, "
      "19 mismatch, 20 too large, 21 too slow, 22 redirect to another host (docs/cli.md, docs/knowledge.md).");
  return [flags](Context& context) -> Result<CommandOutput> {
    std::string source = flags->from;
    if (source.empty()) {
      auto feed = knowledge::resolve_feed(flags->feed);
      if (!feed) {
        return fail(ErrorKind::usage, "No knowledge feed is configured: the project publishes none yet",
                    fmt::format("Pass --from DIR|URL or --feed URL, or set {} (docs/knowledge.md).", knowledge::kFeedVariable));
      }
      source = *feed;
    }
    if (auto ok = require_home(context); !ok) return std::unexpected(ok.error());
    knowledge::UpdateOptions options;
    options.source = source;
    options.folder = context.home.root / "knowledge";
    options.check_only = flags->check;
    options.time_limit = std::chrono::seconds(flags->max_time);
    options.ca_bundle = flags->cacert;
    options.at = knowledge::now();
    auto result = knowledge::update(options);
    if (!result) {
      const auto refusal = knowledge::refusal_of(result.error());
      if (!refusal) return std::unexpected(result.error());
      // A refusal's exit code is its own (docs/cli.md); the error is shown as main shows errors.
      CommandOutput out;
      out.exit_code = static_cast<int>(*refusal);
      out.json = {{"error", result.error()}, {"refusal", knowledge::to_string(*refusal)}, {"source", source}};
      if (!context.options.json) context.notices.print(result.error());
      return out;
    }
    CommandOutput out;
    out.json = knowledge::to_json(*result);
    out.json["source"] = source;
    out.json["check"] = flags->check;
    out.text = render(*result, flags->check, context.style);
    return out;
  };
}

}  // namespace zcuda::cli
