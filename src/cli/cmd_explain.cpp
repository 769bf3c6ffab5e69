// zcuda explain: recognise a failure message (or a log: a file, or standard input) and say its
// cause and fix, filled with this machine's facts; a message with several causes ranks them;
// --symptom checks this machine for a problem that has no message; --list shows the knowledge
// base, --list --markdown renders the troubleshooting page.
#include <fmt/format.h>

#include <zcuda/explain/explain.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/platform/terminal.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct ExplainOptions {
  std::vector<std::string> text;
  std::optional<std::string> file;  // a path as UTF-8, or "-" for standard input
  std::optional<std::string> symptom;
  bool list = false;
  bool markdown = false;
  bool no_detect = false;
};

// The exit code of text that matches no entry: the command ran, the outcome is negative.
constexpr int kUnknownExit = 1;

const char* const kCollect =
    "Run `zcuda report --bundle report.zip` and attach it with the program's full output (the whole message, not a screenshot).";

const char* const kUsage =
    "Usage: zcuda explain TEXT | zcuda explain --file LOG | PROGRAM 2>&1 | zcuda explain | zcuda explain --symptom list | zcuda explain --list";

nlohmann::json causes_json(const explain::Entry& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : e.causes) {
    std::vector<std::string> when;
    for (auto s : c.when) when.emplace_back(explain::to_string(s));
    out.push_back({{"id", c.id}, {"cause", c.cause}, {"fix", c.fix}, {"when", when}, {"source", c.source}});
  }
  return out;
}

CommandOutput list_entries(const explain::KnowledgeBase& kb, bool markdown) {
  CommandOutput out;
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : kb.entries) {
    nlohmann::json entry = {{"id", e.id},       {"title", e.title}, {"patterns", e.patterns}, {"samples", e.samples},
                            {"cause", e.cause}, {"fix", e.fix},     {"facts", e.facts},       {"source", e.source}};
    if (!e.causes.empty()) entry["causes"] = causes_json(e);
    entries.push_back(std::move(entry));
    out.text += fmt::format("{:<32} {}\n", e.id, e.title);
  }
  out.json["entries"] = std::move(entries);
  if (markdown) out.text = explain::render_markdown(kb);
  return out;
}

Result<CommandOutput> explain_symptom(const std::string& name, bool no_detect, Context& context) {
  auto symptoms = explain::builtin_symptoms();
  if (!symptoms) return std::unexpected(symptoms.error());
  CommandOutput out;
  if (name == "list") {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& s : **symptoms) {
      list.push_back({{"id", s.id}, {"title", s.title}, {"seen", s.seen}, {"check", std::string(explain::to_string(s.check))}, {"source", s.source}});
      out.text += fmt::format("{:<28} {}\n", s.id, s.title);
    }
    out.json["symptoms"] = std::move(list);
    return out;
  }
  auto it = std::find_if((*symptoms)->begin(), (*symptoms)->end(), [&](const explain::Symptom& s) { return s.id == name; });
  if (it == (*symptoms)->end()) {
    std::vector<std::string> ids;
    for (const auto& s : **symptoms) ids.push_back(s.id);
    return fail(ErrorKind::usage, fmt::format("No symptom is named \"{}\"", name),
                fmt::format("Known symptoms: {} (`zcuda explain --symptom list`)", fmt::join(ids, ", ")));
  }
  explain::SymptomReport report;
  report.symptom = &*it;
  if (no_detect) {
    report.findings.found.push_back("This machine was not looked at (--no-detect).");
  } else {
    report = explain::check_symptom(*it, context.home);
  }
  out.json["symptom"] = explain::to_json(report);
  out.text = explain::render_text(report);
  return out;
}

// The text to explain: TEXT, --file LOG, --file - or standard input that is not a terminal.
Result<explain::LogInput> read_input(const ExplainOptions& o) {
  if (o.file && !o.text.empty()) return fail(ErrorKind::usage, "Give either TEXT or --file LOG, not both");
  Result<explain::LogInput> input = fail(ErrorKind::usage, "Nothing to explain", kUsage);
  if (o.file && *o.file != "-") {
    input = explain::read_log_file(path_from_utf8(*o.file));
  } else if (!o.text.empty()) {
    explain::LogInput given;
    given.text = fmt::format("{}", fmt::join(o.text, " "));
    given.source = "the command line";
    given.total = given.text.size();
    return given;
  } else if (o.file || !platform::is_terminal(stdin)) {
    input = explain::read_log_stdin();
    if (input && input->total == 0) {
      return fail(ErrorKind::usage, "Nothing to explain: standard input was empty",
                  "A program that stops without a word: `zcuda explain --symptom list` lists problems that have no message.");
    }
  }
  return input;
}

}  // namespace

CommandRun setup_explain(CLI::App& sub) {
  auto o = std::make_shared<ExplainOptions>();
  sub.add_option("TEXT", o->text, "The failure message (quote it; several words are joined with spaces)");
  sub.add_option("--file", o->file, "Read the text from a log file (a regular file; its last 64 MiB when longer), or from standard input with -")
      ->type_name("LOG|-")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text == "-") return {};
            std::error_code ec;
            if (!std::filesystem::exists(path_from_utf8(text), ec)) return "File does not exist: " + text;
            return {};
          },
          ""));
  sub.add_option("--symptom", o->symptom, "Check this machine for a problem that has no message (`list` names them)")->type_name("NAME|list");
  sub.add_flag("--list", o->list, "List the failures zcuda knows");
  sub.add_flag("--markdown", o->markdown, "With --list: the troubleshooting page as Markdown (docs/troubleshooting.md)");
  sub.add_flag("--no-detect", o->no_detect, "Do not look at this machine (explanations without its facts)");
  sub.footer(
      "Without TEXT or --file, standard input is read when it is not a terminal (PROGRAM 2>&1 | zcuda explain; UTF-8 or UTF-16).\n"
      "Exit code: 0 when the text is recognised (or with --list, --symptom), 1 when it is not known, 2 usage (nothing to explain,\n"
      "an unknown symptom), 13 when --file names a FIFO, a directory or a device.");

  return [o](Context& context) -> Result<CommandOutput> {
    auto kb = explain::builtin_knowledge_base();
    if (!kb) return std::unexpected(kb.error());
    if (o->list) return list_entries(**kb, o->markdown);
    if (o->markdown) return fail(ErrorKind::usage, "--markdown goes with --list");
    if (o->symptom) {
      if (o->file || !o->text.empty()) return fail(ErrorKind::usage, "--symptom goes without TEXT or --file");
      return explain_symptom(*o->symptom, o->no_detect, context);
    }
    auto input = read_input(*o);
    if (!input) return std::unexpected(input.error());
    if (input->cut && !context.options.quiet) context.notices.print(ui::NoticeKind::warning, explain::cut_notice(*input));

    explain::MachineFacts machine;
    if (!o->no_detect) {
      machine = explain::gather_machine_facts(context.home);
    }
    CommandOutput out;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& match : explain::match_text(**kb, input->text)) {
      const auto explanation = explain::explain_match(match, machine);
      list.push_back(explain::to_json(explanation));
      out.text += (out.text.empty() ? "" : "\n") + explain::render_text(explanation);
    }
    out.json["input"] = {{"source", input->source}, {"bytes", input->total}, {"explained_bytes", input->text.size()}, {"cut", input->cut}};
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
