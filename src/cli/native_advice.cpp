#include "native_advice.hpp"

#include <fmt/format.h>

#include <zcuda/backends/native_venv.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/launch/detected.hpp>
#include <zcuda/platform/interrupt.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::cli {

namespace fs = std::filesystem;

namespace {

// A venv's root: the folder above bin/ or Scripts/.
fs::path venv_root(const fs::path& interpreter) {
  fs::path dir = interpreter.parent_path();
  const std::string name = path_to_utf8(dir.filename());
  return name == "bin" || name == "Scripts" || name == "scripts" ? dir.parent_path() : dir;
}

// Beside the application's venv: <venv>-rocm next to it.
fs::path suggested_venv(const apps::Match& match) {
  if (match.torch && match.torch->venv) {
    const fs::path root = venv_root(match.torch->interpreter);
    return root.parent_path() / path_from_utf8(path_to_utf8(root.filename()) + "-rocm");
  }
  return match.root / "venv-rocm";
}

// The interpreter that makes the ROCm venv: --python, the application's venv's base, or python
// on PATH (a bare name, found when the command runs).
fs::path maker_python(const NativeFlags& flags, const std::optional<apps::Match>& match) {
  if (flags.python) return *flags.python;
  if (match && match->torch) {
    if (auto base = backends::base_python(match->torch->interpreter, platform::current_os())) return *base;
  }
  return platform::current_os() == platform::Os::windows ? fs::path("python") : fs::path("python3");
}

std::optional<std::string> index_from_environment() {
  const auto env = platform::current_environment();
  auto it = env.find(backends::kIndexUrlVariable);
  return it == env.end() || it->second.empty() ? std::nullopt : std::optional(it->second);
}

const backends::Advice* first_native(const std::vector<backends::Advice>& advice) {
  for (const auto& a : advice) {
    if (a.pytorch == backends::Backend::native_rocm && !a.pytorch_install.empty()) return &a;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<backends::Advice>> gpu_advice(const NativeFlags& flags) {
  auto table = backends::embedded_table();
  if (!table) return std::unexpected(table.error());
  if (flags.gfx) return std::vector<backends::Advice>{backends::advise_gfx(*flags.gfx, platform::current_os(), **table)};
  return backends::advise(launch::detect_for_launch(true), **table);
}

std::optional<NativeAdvice> advise_native(const apps::Match& match, const apps::Setup& setup, const std::vector<backends::Advice>& advice,
                                          const NativeFlags& flags, const Context& context) {
  // A PyTorch application on ZLUDA: a CUDA torch the torch check would run.
  if (!match.torch || setup.native_rocm || match.profile.check != apps::Check::torch || !match.torch->cuda) return std::nullopt;
  const backends::Advice* a = first_native(advice);
  if (!a) return std::nullopt;
  auto steps =
      backends::native_steps(*a, flags.setup.value_or(suggested_venv(match)), maker_python(flags, match), flags.index_url, index_from_environment());
  if (!steps) return std::nullopt;
  const auto os = platform::current_os();
  NativeAdvice out;
  out.json = *steps;
  out.json["reason"] = a->pytorch_reason;
  out.json["basis"] = a->pytorch_basis;
  out.json["app_venv_left_alone"] = path_to_utf8(venv_root(match.torch->interpreter));
  const std::string gpu = a->gpu.empty() ? a->gfx : a->gfx.empty() ? a->gpu : fmt::format("{} ({})", a->gpu, a->gfx);
  std::string& t = out.text;
  t += context.style.bold(fmt::format("Native ROCm PyTorch serves {}", gpu)) + fmt::format(": {}\n", a->pytorch_reason);
  t += fmt::format("  A ROCm venv beside the application's own; the application's venv ({}) is left alone:\n",
                   path_to_utf8(venv_root(match.torch->interpreter)));
  t += fmt::format("    {}\n", backends::command_line(steps->make_venv(), os));
  t += fmt::format("    {}\n", backends::command_line(steps->pip_install(), os));
  if (steps->python_versions) t += fmt::format("  The index builds Python {}.\n", fmt::join(*steps->python_versions, ", "));
  t += fmt::format("  'zcuda apps {} --setup-native {}{}' runs these steps (undo: --undo-native {}).\n",
                   backends::command_line({path_to_utf8(match.root)}, os), backends::command_line({path_to_utf8(steps->venv)}, os),
                   flags.gfx ? " --gfx " + *flags.gfx : std::string(), backends::command_line({path_to_utf8(steps->venv)}, os));
  t += fmt::format("  Then measure both: zcuda bench --b-runtime native --b-program {} -- {} <the app's arguments>\n",
                   backends::command_line({path_to_utf8(steps->venv_python())}, os),
                   backends::command_line({path_to_utf8(match.torch->interpreter)}, os));
  for (const auto& s : a->sources) t += context.style.dim(fmt::format("  source: {}\n", s));
  return out;
}

Result<CommandOutput> setup_native(const NativeFlags& flags, const std::optional<apps::Match>& match, Context& context) {
  auto advice = gpu_advice(flags);
  if (!advice) return std::unexpected(advice.error());
  if (advice->empty()) {
    return fail(ErrorKind::environment, "no AMD GPU was found to choose ROCm PyTorch packages for",
                "Name the GPU's target with --gfx (zcuda detect shows it), e.g. --gfx gfx1100.");
  }
  const backends::Advice* a = first_native(*advice);
  // Absolute, so the undo record names the folder wherever --undo-native is run from.
  std::error_code ec;
  const fs::path venv = fs::absolute(*flags.setup, ec);
  auto steps = backends::native_steps(a ? *a : advice->front(), ec ? *flags.setup : venv, maker_python(flags, match), flags.index_url,
                                      index_from_environment());
  if (!steps) return std::unexpected(steps.error());
  backends::SetupProgress progress;
  const bool quiet = context.options.quiet || context.options.json;
  progress.step = [&](const std::string& text) {
    if (!context.options.quiet) std::fputs(("zcuda: " + text + "\n").c_str(), stderr);
  };
  progress.show_output = !quiet;
  progress.cancel = &platform::interrupt_flag();
  auto made = backends::setup_native(*steps, progress);
  if (!made) return std::unexpected(made.error());
  const auto os = platform::current_os();
  CommandOutput out;
  out.json = {
      {"steps", *steps},
      {"venv", path_to_utf8(made->venv)},
      {"python", path_to_utf8(made->python)},
      {"undo_record", path_to_utf8(made->undo_record)},
      {"installed", made->installed},
      {"app_venv_left_alone", match && match->torch ? nlohmann::json(path_to_utf8(venv_root(match->torch->interpreter))) : nlohmann::json(nullptr)}};
  std::string& t = out.text;
  t += context.style.green("Made ") + fmt::format("a ROCm PyTorch venv in {} for {} (index {}, from {})\n", path_to_utf8(made->venv), steps->gfx,
                                                  steps->index_url, steps->index_from);
  for (const auto& i : made->installed) t += fmt::format("  installed: {}\n", i);
  if (match && match->torch)
    t += fmt::format("  The application's own venv ({}) was left alone.\n", path_to_utf8(venv_root(match->torch->interpreter)));
  t += fmt::format("  Undo record: {}; 'zcuda apps --undo-native {}' removes the venv.\n", path_to_utf8(made->undo_record),
                   backends::command_line({path_to_utf8(made->venv)}, os));
  t += fmt::format("  Its Python: {} ('zcuda apps' on it says native ROCm; bench --b-program {} measures it against the app)\n",
                   path_to_utf8(made->python), backends::command_line({path_to_utf8(made->python)}, os));
  return out;
}

Result<CommandOutput> undo_native(const NativeFlags& flags, const Context& context) {
  auto undone = backends::undo_native(*flags.undo);
  if (!undone) return std::unexpected(undone.error());
  CommandOutput out;
  out.json = {{"removed", path_to_utf8(undone->venv)}, {"created_utc", undone->created_utc}};
  out.text = context.style.green("Removed ") + fmt::format("the ROCm venv {} (made {})\n", path_to_utf8(undone->venv), undone->created_utc);
  return out;
}

}  // namespace zcuda::cli
