// Explanations as JSON and terminal text, and the knowledge base as the troubleshooting page.
#include <zcuda/explain/explain.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zcuda::explain {

nlohmann::json to_json(const Explanation& e) {
  return {{"id", e.id},
          {"title", e.title},
          {"cause", e.cause},
          {"fix", e.fix},
          {"source", e.source},
          {"matched", {{"line", e.matched_line}, {"line_number", e.line_number}}},
          {"gfx", e.gfx ? nlohmann::json(*e.gfx) : nlohmann::json(nullptr)},
          {"machine", e.facts}};
}

std::string render_text(const Explanation& e) {
  std::string out = fmt::format("{} [{}]\n", e.title, e.id);
  out += fmt::format("  matched: {}\n", e.matched_line);
  out += fmt::format("  cause:   {}\n", e.cause);
  out += fmt::format("  fix:     {}\n", e.fix);
  for (const auto& f : e.facts) out += fmt::format("  machine: {}\n", f);
  out += fmt::format("  source:  {}\n", e.source);
  return out;
}

std::string render_markdown(const KnowledgeBase& kb) {
  std::string out =
      "# Troubleshooting: known failures\n\n"
      "<!-- Generated from manifests/known-failures.json by `zcuda explain --list --markdown`; do not edit by hand. -->\n\n"
      "`zcuda explain TEXT` (or `zcuda explain --file LOG`) recognises these messages and fills the\n"
      "explanation with your machine's facts (its GPUs and their gfx targets, the driver, the HIP SDK, MIOpen).\n"
      "`zcuda run` does the same for a program that fails: it explains the last fatal message of the\n"
      "program's output (a warning only when there is none), and a Windows loader exit status\n"
      "(0xC0000135, 0xC0000139, 0xC0000142) when the failure was a dialog that never reached the output.\n"
      "Logs may be UTF-8 or UTF-16 (what PowerShell 5.1's `>` writes), with colour codes and progress bars.\n"
      "In the texts below, {gfx} stands for the gfx target the message names (else your GPU's) and\n"
      "{captured} for the library, function or file it names.\n"
      "A message not listed here: run `zcuda report --bundle` and attach the bundle with the full message.\n\n"
      "## Adding an entry\n\n"
      "1. Find the failure in a public thread (an issue, a forum post, a project's documentation) and\n"
      "   copy the message exactly as it is quoted there.\n"
      "2. Add an object to `entries` in `manifests/known-failures.json`:\n"
      "   - `id`: kebab-case, stable (run records keep it);\n"
      "   - `title`, `cause`, `fix`: sentences; `{gfx}` and `{captured}` may appear, `{gfx}` as a word of its own;\n"
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
    out += fmt::format("\n**Cause.** {}\n\n**Fix.** {}\n\n", e.cause, e.fix);
    std::vector<std::string> links;
    for (std::size_t at = 0; at < e.source.size();) {
      const std::size_t end = std::min(e.source.find("; ", at), e.source.size());
      links.push_back(fmt::format("<{}>", e.source.substr(at, end - at)));
      at = end + 2;
    }
    out += fmt::format("Sources: {}\n", fmt::join(links, ", "));
  }
  return out;
}

}  // namespace zcuda::explain
