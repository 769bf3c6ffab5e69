// Explanations as JSON and terminal text, and the knowledge base as the troubleshooting page.
#include <zcuda/explain/explain.hpp>

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
      "`zcuda run` does the same for a program that fails. In the texts below, {gfx} stands for the gfx\n"
      "target the message names (else your GPU's) and {captured} for the library or function it names.\n"
      "A message not listed here: run `zcuda report --bundle` and attach the bundle with the full message.\n";
  for (const auto& e : kb.entries) {
    out += fmt::format("\n## {}\n\n", e.title);
    out += fmt::format("Id: `{}`\n\n", e.id);
    out += "Messages:\n\n";
    for (const auto& s : e.samples) out += fmt::format("    {}\n", s);
    out += fmt::format("\n**Cause.** {}\n\n**Fix.** {}\n\n", e.cause, e.fix);
    out += fmt::format("Source: {}\n", e.source);
  }
  return out;
}

}  // namespace zcuda::explain
