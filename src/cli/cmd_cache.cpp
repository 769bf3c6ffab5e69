// zcuda cache: list the kernel caches programs run through ZLUDA fill; `cache clear` removes them.
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/caches/caches.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/ui/table.hpp>
#include <zcuda/base/units.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct CacheOptions {
  CLI::App* clear = nullptr;
  std::vector<std::string> names;
  bool yes = false;
};

std::string when(const std::optional<std::int64_t>& seconds) {
  if (!seconds) return "-";
  return fmt::format("{:%Y-%m-%d %H:%M}", std::chrono::sys_seconds(std::chrono::seconds(*seconds)));
}

std::string render_list(const std::vector<caches::Usage>& usages, const ui::Style& s) {
  ui::Table t({"Cache", "Size", "Files", "Newest (UTC)", "Oldest (UTC)", "Folder"});
  std::uint64_t total = 0;
  for (const auto& u : usages) {
    total += u.bytes;
    std::string folder = fmt::format("{}", u.folder.path);
    if (u.folder.origin != "default") folder += " (" + u.folder.origin + ")";
    if (!u.exists) {
      t.add_row({u.folder.name, s.dim("none"), "-", "-", "-", s.dim(folder)});
    } else if (u.is_link) {
      t.add_row({u.folder.name, s.yellow("link"), "-", "-", "-", folder + " (a link; not followed)"});
    } else {
      t.add_row({u.folder.name, zcuda::format_bytes(u.bytes), std::to_string(u.files), when(u.newest), when(u.oldest), folder});
    }
  }
  return t.render() + fmt::format("\nTotal: {}. Clear with 'zcuda cache clear NAME... --yes'.\n", zcuda::format_bytes(total));
}

std::string render_clear(const std::vector<caches::Removal>& removals, bool applied, const ui::Style& s) {
  if (removals.empty()) return "Nothing to remove: none of these caches exists.\n";
  std::string out;
  for (const auto& r : removals) {
    const std::string what = fmt::format("{} {} ({}, {} file{})", r.usage.folder.name, r.usage.folder.path, zcuda::format_bytes(r.usage.bytes),
                                         r.usage.files, r.usage.files == 1 ? "" : "s");
    if (r.refused) {
      out += s.yellow("left alone: ") + what + ": " + *r.refused + "\n";
    } else {
      out += (applied ? s.green("removed: ") : "would remove: ") + what + "\n";
    }
  }
  if (!applied) out += "Nothing was removed. Add --yes to remove these folders.\n";
  return out;
}

}  // namespace

CommandRun setup_cache(CLI::App& sub) {
  auto o = std::make_shared<CacheOptions>();
  sub.require_subcommand(0, 1);
  o->clear = sub.add_subcommand("clear", "Remove the named caches (zluda, miopen, triton, torchinductor)");
  o->clear->add_option("NAME", o->names, "zluda, miopen, triton or torchinductor")->required();
  o->clear->add_flag("--yes", o->yes, "Remove them (without it, only show what would be removed)");
  o->clear->fallthrough();
  sub.footer("Sizes count regular files; links inside a cache are neither followed nor counted. docs/caches.md lists where each cache lives.");

  return [o](Context& context) -> Result<CommandOutput> {
    const auto inputs = caches::live_inputs();
    CommandOutput output;
    if (!o->clear->parsed()) {
      std::vector<caches::Usage> usages;
      output.json["caches"] = nlohmann::json::array();
      std::uint64_t total = 0;
      for (const auto& folder : caches::locate(inputs)) {
        usages.push_back(caches::measure(folder));
        total += usages.back().bytes;
        output.json["caches"].push_back(caches::to_json(usages.back()));
      }
      output.json["total_bytes"] = total;
      output.text = render_list(usages, context.style);
      return output;
    }
    auto removals = caches::clear(o->names, inputs, o->yes);
    if (!removals) return std::unexpected(removals.error());
    output.json["applied"] = o->yes;
    output.json["folders"] = nlohmann::json::array();
    bool refused = false;
    for (const auto& r : *removals) {
      auto j = caches::to_json(r.usage);
      j["removed"] = r.removed;
      j["refused"] = r.refused ? nlohmann::json(*r.refused) : nlohmann::json(nullptr);
      output.json["folders"].push_back(std::move(j));
      refused = refused || r.refused.has_value();
    }
    output.text = render_clear(*removals, o->yes, context.style);
    // Without --yes nothing happened: a negative outcome, as is a folder left alone.
    if ((!o->yes && !removals->empty()) || refused) output.exit_code = 1;
    return output;
  };
}

}  // namespace zcuda::cli
