// zcuda explain: recognise a failure message (or a log) and say its cause and fix, filled with
// this machine's facts; --list shows the knowledge base, --list --markdown renders the
// troubleshooting page.
#include <fmt/format.h>

#include <zcuda/explain/explain.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct ExplainOptions {
  std::vector<std::string> text;
  std::optional<std::filesystem::path> file;
  bool list = false;
  bool markdown = false;
  bool no_detect = false;
};

// The exit code of text that matches no entry: the command ran, the outcome is negative.
constexpr int kUnknownExit = 1;

const char* const kCollect =
    "Run `zcuda report --bundle report.zip` and attach it with the program's full output (the whole message, not a screenshot).";

CommandOutput list_entries(const explain::KnowledgeBase& kb, bool markdown) {
  CommandOutput out;
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : kb.entries) {
    entries.push_back({{"id", e.id},
                       {"title", e.title},
                       {"patterns", e.patterns},
                       {"samples", e.samples},
                       {"cause", e.cause},
                       {"fix", e.fix},
                       {"facts", e.facts},
                       {"source", e.source}});
    out.text += fmt::format("{:<32} {}\n", e.id, e.title);
  }
  out.json["entries"] = std::move(entries);
  if (markdown) out.text = explain::render_markdown(kb);
  return out;
}

}  // namespace

CommandRun setup_explain(CLI::App& sub) {
  auto o = std::make_shared<ExplainOptions>();
  sub.add_option("TEXT", o->text, "The failure message (quote it; several words are joined with spaces)");
  add_path_option(sub, "--file", o->file, "Read the text from a log file instead")->type_name("LOG")->check(kExistingFile);
  sub.add_flag("--list", o->list, "List the failures zcuda knows");
  sub.add_flag("--markdown", o->markdown, "With --list: the troubleshooting page as Markdown (docs/troubleshooting.md)");
  sub.add_flag("--no-detect", o->no_detect, "Do not look at this machine (explanations without its facts)");
  sub.footer("Exit code: 0 when the text is recognised (or with --list), 1 when it is not known.");

  return [o](Context& context) -> Result<CommandOutput> {
    auto kb = explain::builtin_knowledge_base();
    if (!kb) return std::unexpected(kb.error());
    if (o->list) return list_entries(**kb, o->markdown);
    if (o->markdown) return fail(ErrorKind::usage, "--markdown goes with --list");
    if (o->file && !o->text.empty()) return fail(ErrorKind::usage, "Give either TEXT or --file LOG, not both");
    std::string text;
    if (o->file) {
      auto read = platform::read_file(*o->file);
      if (!read) return std::unexpected(read.error());
      text = std::move(*read);
    } else if (!o->text.empty()) {
      text = fmt::format("{}", fmt::join(o->text, " "));
    } else {
      return fail(ErrorKind::usage, "Nothing to explain", "Usage: zcuda explain TEXT | zcuda explain --file LOG | zcuda explain --list");
    }

    explain::MachineFacts machine;
    if (!o->no_detect) {
      machine = explain::gather_machine_facts(context.home);
    }
    CommandOutput out;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& match : explain::match_text(**kb, text)) {
      const auto explanation = explain::explain_match(match, machine);
      list.push_back(explain::to_json(explanation));
      out.text += (out.text.empty() ? "" : "\n") + explain::render_text(explanation);
    }
    out.json["known"] = !list.empty();
    out.json["explanations"] = std::move(list);
    if (!out.json["known"].get<bool>()) {
      out.json["collect"] = kCollect;
      out.text = fmt::format("zcuda does not know this failure ({} known: `zcuda explain --list`).\n{}\n", (*kb)->entries.size(), kCollect);
      out.exit_code = kUnknownExit;
    }
    return out;
  };
}

}  // namespace zcuda::cli
