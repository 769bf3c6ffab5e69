// Explanations as JSON and terminal text, and the knowledge base as the troubleshooting page.
#include <zcuda/explain/explain.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zcuda::explain {

namespace {

std::vector<std::string> split_sources(const std::string& source) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < source.size();) {
    const std::size_t end = std::min(source.find("; ", at), source.size());
    out.push_back(source.substr(at, end - at));
    at = end + 2;
  }
  return out;
}

std::string links(const std::string& source) {
  std::vector<std::string> out;
  for (const auto& s : split_sources(source)) out.push_back(fmt::format("<{}>", s));
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

nlohmann::json to_json(const Explanation& e) {
  nlohmann::json out = {{"id", e.id},
                        {"title", e.title},
                        {"cause", e.cause},
                        {"fix", e.fix},
                        {"source", e.source},
                        {"matched", {{"line", e.matched_line}, {"line_number", e.line_number}}},
                        {"gfx", e.gfx ? nlohmann::json(*e.gfx) : nlohmann::json(nullptr)},
                        {"machine", e.facts}};
  if (!e.causes.empty()) {
    nlohmann::json causes = nlohmann::json::array();
    for (const auto& c : e.causes) {
      causes.push_back({{"id", c.id},
                        {"cause", c.cause},
                        {"fix", c.fix},
                        {"source", c.source},
                        {"likelihood", std::string(to_string(c.likelihood))},
                        {"because", c.because}});
    }
    out["causes"] = std::move(causes);
  }
  return out;
}

std::string render_text(const Explanation& e) {
  std::string out = fmt::format("{} [{}]\n", e.title, e.id);
  out += fmt::format("  matched: {}\n", e.matched_line);
  if (e.causes.empty()) {
    out += fmt::format("  cause:   {}\n", e.cause);
    out += fmt::format("  fix:     {}\n", e.fix);
  } else {
    for (std::size_t i = 0; i < e.causes.size(); ++i) {
      const auto& c = e.causes[i];
      if (i == 1) out += "  other causes, less likely here or not told apart:\n";
      out += fmt::format("  {} {} of {} [{}], {} here: {}\n", i == 0 ? "likeliest cause," : "  cause", i + 1, e.causes.size(), c.id,
                         to_string(c.likelihood), fmt::join(c.because, "; "));
      out += fmt::format("    cause:  {}\n", c.cause);
      out += fmt::format("    fix:    {}\n", c.fix);
      out += fmt::format("    source: {}\n", c.source);
    }
  }
  for (const auto& f : e.facts) out += fmt::format("  machine: {}\n", f);
  out += fmt::format("  source:  {}\n", e.source);
  return out;
}

namespace {
std::string signal_words() {
  std::vector<std::string> words;
  for (auto s : all_signals()) words.push_back(fmt::format("`{}`", to_string(s)));
  return fmt::format("{}", fmt::join(words, ", "));
}
}  // namespace

std::string render_markdown(const KnowledgeBase& kb) {
  std::string out =
      "# Troubleshooting: known failures\n\n"
      "<!-- Generated from manifests/known-failures.json by `zcuda explain --list --markdown`; do not edit by hand. -->\n\n"
      "`zcuda explain TEXT` (or `zcuda explain --file LOG`, or a program's output piped in:\n"
      "`PROGRAM 2>&1 | zcuda explain`) recognises these messages and fills the explanation with your\n"
      "machine's facts (its GPUs and their gfx targets, the driver, the HIP SDK, MIOpen).\n"
      "A message with several real causes lists them all, the likeliest on your machine first (its driver,\n"
      "its GPUs with an integrated one enumerated first, the installed runtime's quarantined files).\n"
      "A problem with no message (a first run that seems to hang, a PhysX game that ignores the GPU, a\n"
      "`zluda.exe` that starts nothing): `zcuda explain --symptom list`.\n"
      "`zcuda run` does the same for a program that fails: it explains the last fatal message of the\n"
      "program's output (a warning only when there is none), and a Windows loader exit status\n"
      "(0xC0000135, 0xC0000139, 0xC0000142) when the failure was a dialog that never reached the output.\n"
      "Logs may be UTF-8 or UTF-16 (what PowerShell 5.1's `>` and `|` write), with colour codes and progress bars;\n"
      "a log longer than 64 MiB is explained from its end.\n"
      "In the texts below, {gfx} stands for the gfx target the message names (else your GPU's) and\n"
      "{captured} for the library, function or file it names.\n"
      "A message not listed here: run `zcuda report --bundle` and attach the bundle with the full message.\n\n"
      "## Adding an entry\n\n"
      "1. Find the failure in a public thread (an issue, a forum post, a project's documentation) and\n"
      "   copy the message exactly as it is quoted there.\n"
      "2. Add an object to `entries` in `manifests/known-failures.json`:\n"
      "   - `id`: kebab-case, stable (run records keep it);\n"
      "   - `title`, `cause`, `fix`: sentences; `{gfx}` and `{captured}` may appear, `{gfx}` as a word of its own;\n"
      "   - or, for a message with several real causes, `causes` instead of `cause` and `fix`: two or more objects,\n"
      "     each with `id` (kebab-case, unique in the entry), `cause`, `fix`, `source` (the public addresses that\n"
      "     establish this cause) and `when`: the machine facts that make it likely (" +
      signal_words() +
      "; empty when none tells it apart). zcuda ranks them per machine: likely (a fact holds), possible\n"
      "     (nothing here tells), unlikely (every fact named is ruled out); the file's order within each;\n"
      "   - `patterns`: ECMAScript regular expressions, matched case-insensitively against each line; the first\n"
      "     group fills `{captured}`. Give each pattern a literal text of four or more characters outside groups\n"
      "     and alternatives: the matcher looks for it before it runs the expression, so whole logs stay fast;\n"
      "   - `samples`: the real message texts; each must match its own entry and no other;\n"
      "   - `facts`: which machine facts to show (" +
      fmt::format("{}", fmt::join(fact_keys(), ", ")) +
      ");\n"
      "   - `source`: public `https://` addresses only, separated by `; `;\n"
      "   - optional: `severity` (`\"warning\"` for a message that may come before the real failure),\n"
      "     `next_line` (`true` when the program prints the reason on the following line),\n"
      "     `exit_statuses` (Windows loader statuses such as `\"0xC0000135\"` for a failure shown only as a dialog;\n"
      "     one entry per status).\n"
      "3. Add a row to `real_messages()` in `tests/unit/explain/explain_test.cpp`: a real variant of the message\n"
      "   from the thread (its address in a comment above the row) and a word the title must show.\n"
      "4. Regenerate this page with `zcuda explain --list --markdown > docs/troubleshooting.md` and run\n"
      "   `ctest --preset dev -R explain`: loading checks every rule above, and a test compares this page.\n";
  for (const auto& e : kb.entries) {
    out += fmt::format("\n## {}\n\n", e.title);
    out += fmt::format("Id: `{}`{}\n\n", e.id, e.severity == Severity::warning ? " (a warning: often harmless when another failure follows)" : "");
    out += "Messages:\n\n";
    for (const auto& s : e.samples) out += fmt::format("    {}\n", s);
    if (!e.exit_statuses.empty()) {
      std::vector<std::string> codes;
      for (auto status : e.exit_statuses) codes.push_back(fmt::format("0x{:08X}", status));
      out += fmt::format("\nShown as a Windows dialog; `zcuda run` recognises the exit status {}.\n", fmt::join(codes, ", "));
    }
    if (e.causes.empty()) {
      out += fmt::format("\n**Cause.** {}\n\n**Fix.** {}\n\n", e.cause, e.fix);
    } else {
      out += fmt::format(
          "\n**Causes.** This message has {} known causes; `zcuda explain` ranks them with your machine's facts and shows the likeliest first.\n\n",
          e.causes.size());
      for (std::size_t i = 0; i < e.causes.size(); ++i) {
        const auto& c = e.causes[i];
        std::vector<std::string> when;
        for (auto signal : c.when) when.push_back(fmt::format("`{}`", to_string(signal)));
        out += fmt::format("{}. **{}** ({}). {} **Fix.** {} Sources: {}\n", i + 1, c.id,
                           when.empty() ? std::string("no machine fact tells it apart") : fmt::format("likely when: {}", fmt::join(when, ", ")),
                           c.cause, c.fix, links(c.source));
      }
      out += "\n";
    }
    out += fmt::format("Sources: {}\n", links(e.source));
  }
  out +=
      "\n## Symptoms with no message\n\n"
      "`zcuda explain --symptom NAME` (`--symptom list` names them) explains a problem that prints nothing and\n"
      "checks this machine for its cause. They live in `manifests/symptoms.json`: `format` 1 and `symptoms`, each\n"
      "with `id` (kebab-case), `title`, `seen` (what the user sees), `cause`, `fix`, `check` (the check zcuda runs:\n"
      "`compute_cache`, `physx_install` or `launcher`) and `source` (public `https://` addresses, separated by `; `).\n"
      "A new check is code in `src/core/explain/symptoms.cpp`.\n";
  if (auto symptoms = builtin_symptoms()) {
    for (const auto& s : **symptoms) {
      out += fmt::format("\n### {}\n\n`zcuda explain --symptom {}` (checks: `{}`)\n\n{}\n\n**Cause.** {}\n\n**Fix.** {}\n\nSources: {}\n", s.title,
                         s.id, to_string(s.check), s.seen, s.cause, s.fix, links(s.source));
    }
  }
  return out;
}

}  // namespace zcuda::explain
