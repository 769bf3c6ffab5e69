#include "verify_app.hpp"

#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <zcuda/apps/check.hpp>
#include <zcuda/apps/runtime_match.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/family/family.hpp>
#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/stage/plan.hpp>
#include <zcuda/stage/stage.hpp>
#include <zcuda/ui/table.hpp>
#include <zcuda/verify/verify.hpp>

#include "app_launch.hpp"
#include "launch_flags.hpp"

namespace zcuda::cli {

namespace fs = std::filesystem;

namespace {

// The application and its profile: the one APP matches, or the one --profile names.
Result<AppLaunch> app_to_check(const VerifyAppOptions& o, const detect::Profile& detected, const Context& context) {
  std::error_code ec;
  if (!fs::exists(o.app, ec))
    return fail(ErrorKind::not_found, fmt::format("{} does not exist", path_to_utf8(o.app)),
                "Give the application's folder or its Python interpreter.");
  auto profiles = load_profiles(context);
  if (!profiles) return std::unexpected(profiles.error());
  const apps::Recognition recognition = apps::recognise(*profiles, apps::Given{o.app, {}, platform::current_os(), true});
  std::optional<apps::Match> match;
  if (o.profile) {
    const apps::Profile* forced = apps::find(*profiles, *o.profile);
    if (!forced) return fail(ErrorKind::usage, fmt::format("there is no application profile called \"{}\"", *o.profile), "zcuda apps lists them.");
    match = apps::forced_match(*forced, recognition);
  } else if (!recognition.matches.empty()) {
    match = recognition.matches.front();
  }
  if (!match) {
    return fail(ErrorKind::not_found, fmt::format("{} matches no application profile", path_to_utf8(o.app)),
                "zcuda apps PATH says why; --profile NAME picks one.");
  }
  return AppLaunch{*match, apps::setup_for(*match, platform::current_os(), machine_facts(detected))};
}

// Written where the interpreter can read it: beside zcuda's state, or in the temporary folder.
Result<fs::path> write_script(const Context& context) {
  auto script = apps::torch_check_script();
  if (!script) return std::unexpected(script.error());
  std::error_code ec;
  fs::path dir = context.home_usable ? context.home.state / "apps" : fs::temp_directory_path(ec) / "zcuda-apps";
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected(io_error("create folder", dir, ec));
  const fs::path file = dir / "torch-check.py";
  if (auto written = platform::write_file_atomic(file, *script); !written) return std::unexpected(written.error());
  return file;
}

// What the check placed into the application (torch/lib), to be undone once it ran: verify
// proves the application as it stands and leaves it so.
struct CheckPlacement {
  fs::path folder;
  bool staged_before = false;  // zcuda had staged the folder already (run): left as it is
  std::size_t placed = 0;
  platform::FileLock hold;  // the folder's lock, shared, while the check runs
};

// A torch built for ROCm is checked as `run` launches it: natively, unless a ZLUDA is named.
bool checks_natively(const VerifyAppOptions& o, const AppLaunch& app) {
  return app.setup.native_rocm && !o.runtime_dir && (o.runtime == "auto" || o.runtime == "native");
}

// The launch `zcuda run` would make, with the script in place of the application's own.
Result<launch::LaunchPlan> check_launch(const VerifyAppOptions& o, const AppLaunch& app, const fs::path& script, const detect::Profile& detected,
                                        const Context& context, std::string& runtime_word, std::optional<CheckPlacement>& placement) {
  if (!app.match.torch) {
    return fail(ErrorKind::not_found, fmt::format("no Python interpreter with torch was found for {}", path_to_utf8(o.app)),
                "Give the interpreter itself (venv/bin/python, venv\\Scripts\\python.exe).");
  }
  LaunchFlags flags;
  launch::Options options = launch_options(flags, path_to_utf8(app.match.torch->interpreter), {path_to_utf8(script)}, detected);
  if (checks_natively(o, app)) {
    runtime_word = "native";
    return launch::prepare_native_launch(options, platform::current_environment());
  }
  auto runtime = verify::resolve_runtime(o.runtime_dir, o.runtime, context.home);
  if (!runtime) return std::unexpected(runtime.error());
  const bool own = !o.runtime_dir && o.runtime != "native" && app.setup.app_runtime;
  if (runtime->kind == verify::RuntimeKind::native && !own) {
    runtime_word = "native";
    return launch::prepare_native_launch(options, platform::current_environment());
  }
  options.runtime = launch::RuntimeLocation{own ? *app.setup.app_runtime : *runtime->dir, launch::RuntimeChoice::folder, std::nullopt};
  apply_app(app, options, true);
  if (auto hooked = add_attention_hook(app, options, context); !hooked) return std::unexpected(hooked.error());
  mirror_app_attention(app, options);
  mirror_app_loader(app, options);
  runtime_word = path_to_utf8(options.runtime.dir);
  auto plan = launch::prepare_launch(options, platform::current_environment());
  if (!plan) return plan;
  // As `run` refuses it: the check must not leave torch/lib (or the program's folder) mixed.
  if (auto unmixed = launch::check_families(*plan, options.os); !unmixed) return std::unexpected(unmixed.error());
  if (auto matched = apps::check_runtime_family(app.match.profile, plan->runtime_family); !matched) return std::unexpected(matched.error());
  std::error_code ec;
  const bool staged_before = app.setup.place_into && fs::exists(stage::journal_path(*app.setup.place_into), ec);
  auto placed = place_for_app(app, options.runtime.dir, options.os, detected);
  if (!placed) return std::unexpected(placed.error());
  if (*placed) placement = CheckPlacement{*app.setup.place_into, staged_before, (*placed)->result.placed, std::move((*placed)->hold)};
  return plan;
}

// Undoes the check's placement (zcuda unstage of the folder) unless zcuda had staged the folder
// before the check; says which in the output.
Status undo_placement(CheckPlacement& placement, const Context& context, CommandOutput& out) {
  placement.hold.release();
  nlohmann::json facts = {{"folder", path_to_utf8(placement.folder)}, {"placed", placement.placed}, {"staged_before", placement.staged_before}};
  std::error_code ec;
  if (placement.staged_before || !fs::exists(stage::journal_path(placement.folder), ec)) {
    facts["undone"] = false;
    out.json["placement"] = facts;
    if (placement.staged_before) {
      out.text += context.style.dim(fmt::format("Placement: {} was staged before the check (zcuda run): left as it was; zcuda unstage restores it",
                                                path_to_utf8(placement.folder))) +
                  "\n";
    }
    return {};
  }
  auto undone = stage::unstage(placement.folder, false);
  if (!undone) {
    return std::unexpected(
        std::move(undone.error())
            .with_note(fmt::format("the check placed ZLUDA's libraries into {}; restoring the folder failed", path_to_utf8(placement.folder))));
  }
  facts["undone"] = true;
  facts["restored"] = undone->restored;
  facts["removed"] = undone->removed;
  out.json["placement"] = facts;
  out.text += context.style.dim(fmt::format("Placement: {} file(s) placed into {} for the check, and undone after it (restored byte for byte)",
                                            placement.placed, path_to_utf8(placement.folder))) +
              "\n";
  return {};
}

std::string result_line(const apps::CheckRecord& r, const Context& context) {
  const std::string status(apps::to_string(r.status));
  return "\n" + context.style.bold("Result: ") + (r.passed() ? context.style.green(status) : context.style.red(status)) +
         (r.reason.empty() ? "" : ": " + r.reason) + "\n";
}

std::string describe_fatbin(const apps::CheckRecord& r, const Context& context) {
  const auto& f = r.facts;
  std::string text = fmt::format("Application: {} (profile {})\n", r.app, r.profile);
  if (f.contains("library")) text += fmt::format("Library:     {}\n", f["library"].get<std::string>());
  text += fmt::format("ZLUDA reports compute capability {} ({})\n", f.value("compute_capability", "?"), f.value("compute_capability_from", "?"));
  if (f.contains("compute_capability_note")) text += context.style.dim("  " + f["compute_capability_note"].get<std::string>()) + "\n";
  if (f.contains("targets")) {
    ui::Table table({"TARGET", "KIND", "COMPRESSED", "IMAGES", "ZLUDA"});
    for (const auto& t : f["targets"]) {
      const bool ptx = t.value("kind", "") == "ptx";
      const bool used = f.contains("ptx_used") && f["ptx_used"] == t["target"];
      table.add_row({t.value("target", "?"), t.value("kind", "?"), t.value("compression", "none"), std::to_string(t.value("images", 0)),
                     used  ? context.style.green("compiles this")
                     : ptx ? "above the capability"
                           : "cannot run (machine code)"});
    }
    text += "\n" + table.render();
  }
  text += result_line(r, context);
  if (f.contains("hint")) text += context.style.bold("Hint: ") + f["hint"].get<std::string>() + "\n";
  return text;
}

std::string describe_physx(const apps::CheckRecord& r, const Context& context) {
  std::string text = fmt::format("Application: {} (profile {})\n", r.app, r.profile);
  const auto found = r.facts.value("physx_system_software", nlohmann::json::array());
  if (found.empty()) text += "PhysX System Software: not installed\n";
  for (const auto& entry : found) text += fmt::format("PhysX System Software: {} ({})\n", entry.value("version", "?"), entry.value("name", "?"));
  text += fmt::format("Needed:      {} or newer (upstream's docs/src/physx32.md)\n", r.facts.value("minimum", "?"));
  return text + result_line(r, context);
}

std::string describe(const apps::CheckRecord& r, const Context& context) {
  if (r.check == apps::Check::fatbin) return describe_fatbin(r, context);
  if (r.check == apps::Check::physx) return describe_physx(r, context);
  const auto& style = context.style;
  const auto& f = r.facts;
  std::string text;
  auto fact = [&](const char* key) {
    return f.contains(key) && !f[key].is_null() ? (f[key].is_string() ? f[key].get<std::string>() : f[key].dump()) : std::string("-");
  };
  text += fmt::format("Application: {} (profile {})\nRuntime:     {}\n", r.app, r.profile, r.runtime);
  text += fmt::format("Python:      {} ({})\n", fact("python"), fact("executable"));
  text += fmt::format("torch:       {} (CUDA flavour {}{})\n", fact("torch"), fact("cuda_flavour"),
                      f.contains("hip") && !f["hip"].is_null() ? ", HIP " + fact("hip") : "");
  text += fmt::format("CUDA:        {}{}\n", f.value("cuda_available", false) ? "available" : "unavailable",
                      f.contains("device") ? fmt::format(", device {} (capability {})", fact("device"), fact("capability")) : "");
  if (f.contains("comparisons")) {
    ui::Table table({"GPU vs CPU", "RESULT", "MAX REL. ERROR", "TIME"});
    for (const auto& c : f["comparisons"]) {
      table.add_row({c.value("name", "?"), c.value("ok", false) ? style.green("match") : style.red("differs"),
                     c.contains("max_relative_error") ? fmt::format("{:.2e}", c["max_relative_error"].get<double>()) : c.value("error", ""),
                     c.contains("seconds") ? fmt::format("{:.2f} s", c["seconds"].get<double>()) : ""});
    }
    text += "\n" + table.render();
  }
  if (f.contains("libraries")) {
    text += "\n" + style.bold("CUDA libraries the process loaded") + "\n";
    if (f["libraries"].empty()) text += "  (none)\n";
    for (const auto& l : f["libraries"]) text += "  " + l.get<std::string>() + "\n";
  }
  text += result_line(r, context);
  return text;
}

}  // namespace

Result<CommandOutput> verify_app(const VerifyAppOptions& o, Context& context) {
  const detect::Profile detected = detect_unless_told_not_to(LaunchFlags{});
  auto app = app_to_check(o, detected, context);
  if (!app) return std::unexpected(app.error());
  apps::CheckRecord record;
  record.profile = app->match.profile.name;
  record.app = path_to_utf8(o.app);
  record.zcuda_version = std::string(version());
  record.started_utc = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  record.flavour_problem = app->setup.flavour_problem;
  // Named before anything runs; the check still runs, so its evidence shows what happens.
  if (record.flavour_problem && !context.options.quiet) context.notices.print(ui::NoticeKind::warning, *record.flavour_problem);
  // The application's own ZLUDA is not where it looks: the check runs with the runtime verify resolves, and says so.
  if (app->setup.app_runtime_missing && !o.runtime_dir && !context.options.quiet) {
    context.notices.print(ui::NoticeKind::warning, *app->setup.app_runtime_missing + "; the check uses the runtime verify resolves instead");
  }
  // The family of the runtime the application would get (the fatbin check's capability).
  std::optional<launch::LaunchPlan> plan;
  apps::CheckRun run;
  run.match = &app->match;
  run.app = o.app;
  run.family = app->match.profile.family;
  run.environment = platform::current_environment();
  run.timeout = std::chrono::seconds(o.timeout);
  if (checks_natively(o, *app)) {
    record.runtime = "native";
    if (!context.options.quiet) context.notices.print(ui::NoticeKind::notice, *app->setup.native_rocm + "; the check runs natively");
  } else {
    auto runtime = verify::resolve_runtime(o.runtime_dir, o.runtime, context.home);
    if (!runtime) return std::unexpected(runtime.error());
    record.runtime = runtime->dir ? path_to_utf8(*runtime->dir) : "native";
    if (auto identity = verify::runtime_family(*runtime); identity && identity->family != family::Family::unknown) {
      run.family = identity->family;
      run.release = identity->release;
    }
  }
  std::optional<CheckPlacement> placement;
  run.torch_launch = [&]() -> Result<launch::LaunchPlan> {
    auto script = write_script(context);
    if (!script) return std::unexpected(script.error());
    auto made = check_launch(o, *app, *script, detected, context, record.runtime, placement);
    if (made) plan = *made;
    return made;
  };
  auto ran = apps::run_check(run, record);
  CommandOutput out;
  // Undone whether the check ran or not: the application is left as it was.
  if (placement) {
    if (auto undone = undo_placement(*placement, context, out); !undone) return std::unexpected(undone.error());
  }
  if (!ran) return std::unexpected(ran.error());

  const nlohmann::json placement_facts = out.json.is_object() && out.json.contains("placement") ? out.json["placement"] : nlohmann::json();
  const std::string placement_text = out.text;
  out.json = record;
  if (!placement_facts.is_null()) out.json["placement"] = placement_facts;
  if (plan) out.json["launch"] = launch::to_json(*plan);
  out.text = describe(record, context) + placement_text;
  if (context.home_usable) {
    if (auto written = apps::write_check(context.home, record)) {
      out.json["saved"] = path_to_utf8(*written);
      out.text += context.style.dim("Saved to " + path_to_utf8(*written)) +
                  (record.proves_application() ? context.style.dim("; the evidence ladder counts it (application verified)") : "") + "\n";
    }
  }
  out.exit_code = record.passed() ? 0 : 1;
  return out;
}

}  // namespace zcuda::cli
