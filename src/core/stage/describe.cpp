#include <zcuda/stage/describe.hpp>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/ui/table.hpp>

namespace zcuda::stage {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string service_label(Service service, const ui::Style& style) {
  switch (service) {
    case Service::served:
      return style.green("ZLUDA");
    case Service::stub:
      return style.yellow("ZLUDA (stub)");
    case Service::no_backend:
      return style.red("no backend");
    case Service::not_in_runtime:
      return style.red("not in runtime");
    case Service::nvidia:
      return "NVIDIA's";
  }
  return "";
}

json recovery_json(const std::optional<Recovery>& r) {
  if (!r) return nullptr;
  return {{"interrupted", to_string(r->interrupted)}, {"steps_undone", r->steps_undone}};
}

}  // namespace

std::string describe(const Recovery& r) {
  return r.interrupted == Operation::stage
             ? fmt::format("An interrupted stage was rolled back ({} step{} undone).\n", r.steps_undone, r.steps_undone == 1 ? "" : "s")
             : fmt::format("An interrupted unstage was finished ({} step{}).\n", r.steps_undone, r.steps_undone == 1 ? "" : "s");
}

std::string describe(const Plan& plan, const ui::Style& style) {
  std::string out = fmt::format("App folder: {}\nRuntime:    {}\nScanned {} binar{}.\n", plan.root, plan.runtime_dir, plan.binaries_scanned,
                                plan.binaries_scanned == 1 ? "y" : "ies");
  if (!plan.names.empty()) {
    out += "\nCUDA libraries the program imports:\n";
    ui::Table table({"name", "library", "served by", "note"});
    for (const auto& n : plan.names) table.add_row({n.name, n.library, service_label(n.service, style), n.note});
    out += table.render();
  }
  if (plan.placements.empty()) {
    out += "\nNothing to place.\n";
  } else {
    out += fmt::format("\nFiles to place ({} change{}):\n", plan.changes(), plan.changes() == 1 ? "" : "s");
    ui::Table table({"action", "path", "why"});
    for (const auto& p : plan.placements) {
      std::string action = p.identical ? style.dim("unchanged") : (p.replaces ? style.yellow("replace") : style.green("add"));
      table.add_row({action, generic_path_to_utf8(p.relative), p.reason});
    }
    out += table.render();
    for (const auto& p : plan.placements) {
      if (!p.holds_runtime_file) continue;
      out += fmt::format("{} already holds a ZLUDA file (an application's installer put it there): not an original, {}.\n",
                         generic_path_to_utf8(p.relative), p.identical ? "left as it is" : "backed up all the same");
    }
    if (std::any_of(plan.placements.begin(), plan.placements.end(), [](const Placement& p) { return p.replaces && !p.identical; })) {
      out += fmt::format("Replaced files are moved to {} and restored by 'zcuda unstage'.\n", stage_dir(plan.root) / "backup");
    }
  }
  for (const auto& u : plan.unreadable) out += style.yellow("warning: ") + "could not read " + u + "\n";
  return out;
}

std::string describe(const StageResult& r, const ui::Style& style) {
  std::string out;
  if (r.recovered) out += describe(*r.recovered);
  if (r.restaged) out += "The earlier stage was undone first, since the runtime's files changed.\n";
  out += describe(r.plan, style);
  if (r.placed == 0) {
    out += style.green("\nAlready staged: nothing changed.\n");
  } else {
    out += style.green(fmt::format("\nStaged {} file{} ({} replaced, backed up).", r.placed, r.placed == 1 ? "" : "s", r.replaced)) +
           fmt::format(" Undo with: zcuda unstage {}\n", r.plan.root);
  }
  return out;
}

std::string describe(const UnstageResult& r, const ui::Style& style) {
  std::string out;
  if (r.recovered) out += describe(*r.recovered);
  if (!r.was_staged) {
    out += fmt::format("{} is not staged: nothing to undo.\n", r.root);
    return out;
  }
  out += style.green(fmt::format("Unstaged {}: {} original file{} restored, {} staged file{} removed.\n", r.root, r.restored,
                                 r.restored == 1 ? "" : "s", r.removed, r.removed == 1 ? "" : "s"));
  if (!r.kept.empty()) {
    out += style.yellow(fmt::format("{} changed file{} kept in {}:\n", r.kept.size(), r.kept.size() == 1 ? " was" : "s were", *r.kept_dir));
    for (const auto& k : r.kept) out += fmt::format("  {}\n", k);
  }
  return out;
}

json to_json(const StageResult& r) {
  json out = to_json(r.plan);
  out["recovered"] = recovery_json(r.recovered);
  out["restaged"] = r.restaged;
  out["placed"] = r.placed;
  out["replaced"] = r.replaced;
  out["unchanged"] = r.unchanged;
  out["journal"] = path_to_utf8(journal_path(r.plan.root));
  return out;
}

json to_json(const UnstageResult& r) {
  json kept = json::array();
  for (const auto& k : r.kept) kept.push_back(path_to_utf8(k));
  return {{"root", path_to_utf8(r.root)},
          {"recovered", recovery_json(r.recovered)},
          {"was_staged", r.was_staged},
          {"restored", r.restored},
          {"removed", r.removed},
          {"kept", kept},
          {"kept_dir", r.kept_dir ? json(path_to_utf8(*r.kept_dir)) : json(nullptr)}};
}

}  // namespace zcuda::stage
