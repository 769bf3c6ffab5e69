// zcuda detect: probe the machine, then render the profile for a person or as JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <zcuda/backends/backends.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/launch/quarantine.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/platform/process.hpp>
#include <zcuda/ui/table.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>

#include <zcuda/manifest/knowledge.hpp>

#include "command.hpp"

namespace zcuda::cli {

namespace {

struct DetectOptions {
  std::optional<std::filesystem::path> root;
  bool no_hip = false;
  bool strict = false;
};

using InstalledRuntime = Result<std::optional<launch::InstalledRuntime>>;

// The runtime `zcuda run` uses by default, with its family (docs/families.md).
std::string describe_installed(const InstalledRuntime& installed) {
  if (!installed) return installed.error().message;
  if (!*installed) return "none installed";
  const auto& r = **installed;
  return fmt::format("{} at {} ({})", r.version, path_to_utf8(r.dir), family::summary(r.family));
}

nlohmann::json installed_json(const InstalledRuntime& installed) {
  if (!installed) return {{"error", installed.error().message}};
  if (!*installed) return nullptr;
  const auto& r = **installed;
  return {{"version", r.version}, {"dir", path_to_utf8(r.dir)}, {"family", family::to_json(r.family)}};
}

using Advices = Result<std::vector<backends::Advice>>;

// A pip argument as a shell takes it: extras in brackets quoted.
std::string shell_word(const std::string& word) { return word.find('[') == std::string::npos ? word : "\"" + word + "\""; }

// The Backends section: per AMD GPU, what serves PyTorch applications and CUDA-only programs, why,
// and the sources (docs/backends.md).
std::string render_backends(const Advices& advices, const ui::Style& s) {
  std::string out = "\n" + s.bold("Backends") + "\n";
  if (!advices) return out + "  " + ui::notice_text(s, ui::NoticeKind::error, advices.error().message) + "\n";
  if (advices->empty()) return out + "  no AMD GPU\n";
  for (const auto& a : *advices) {
    using backends::Backend;
    out += fmt::format("  {}{} ({}), {}\n", a.hip_index ? fmt::format("#{} ", *a.hip_index) : "", a.gpu, a.gfx.empty() ? "gfx unknown" : a.gfx,
                       a.os == platform::Os::windows ? "Windows" : "Linux");
    const std::string pytorch = a.pytorch == Backend::native_rocm ? s.green("native ROCm PyTorch")
                                : a.pytorch == Backend::zluda     ? s.yellow("ZLUDA")
                                                                  : s.red("none known");
    out += fmt::format("    PyTorch applications: {}{}\n      {}\n", pytorch, a.pytorch == Backend::native_rocm ? " [" + a.pytorch_basis + "]" : "",
                       a.pytorch_reason);
    if (!a.pytorch_install.empty()) {
      std::vector<std::string> words;
      for (const auto& w : a.pytorch_install) words.push_back(shell_word(w));
      out += fmt::format("      in a venv of its own: pip install {}{}\n", fmt::join(words, " "),
                         a.python ? fmt::format(" (Python {})", fmt::join(*a.python, ", ")) : "");
    }
    out += fmt::format("    CUDA-only programs: {}\n      {}\n", a.cuda_only == Backend::zluda ? s.yellow("ZLUDA") : s.red("none known"),
                       a.cuda_only_reason);
    for (const auto& note : a.notes) out += "      " + ui::notice_text(s, ui::NoticeKind::note, note) + "\n";
    for (std::size_t i = 0; i < a.sources.size(); ++i) out += fmt::format("      {} {}\n", s.dim(i == 0 ? "sources:" : "        "), a.sources[i]);
  }
  return out;
}

std::string render(const detect::Profile& p, const std::optional<InstalledRuntime>& installed, const Advices& advices, const ui::Style& s) {
  std::string out;
  std::size_t errors = 0, warnings = 0;
  for (const auto& f : p.findings) {
    errors += f.severity == detect::Severity::error;
    warnings += f.severity == detect::Severity::warning;
  }
  // The line counts what it names: error findings as errors, warning findings as warnings.
  auto counted = [](std::size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); };
  if (errors > 0) {
    out += s.red(s.bold("Not ready:")) + fmt::format(" {} to fix", counted(errors, "error"));
    if (warnings > 0) out += fmt::format(", and {}", counted(warnings, "warning"));
    if (p.ready_for_physx32()) {
      out += "\n" + s.green(s.bold("Ready for 32-bit PhysX:")) + " ZLUDA runs it without the HIP SDK; CUDA programs need the errors below fixed";
    }
  } else {
    out += s.green(s.bold("Ready:")) + " this machine can run CUDA programs through ZLUDA";
    if (warnings > 0) out += fmt::format(" ({})", counted(warnings, "warning"));
  }
  out += "\n\n" + s.bold("GPUs") + "\n";
  if (p.gpus.empty()) {
    out += "  none found\n";
  } else {
    ui::Table t({"#", "Name", "gfx", "VRAM", "Type", "Status", "Seen by"});
    for (const auto& g : p.gpus) {
      using detect::GpuSupport;
      const std::string word(to_string(g.status));
      std::string status = g.status == GpuSupport::validated     ? s.green(word)
                           : g.status == GpuSupport::candidate   ? s.yellow(word)
                           : g.status == GpuSupport::unsupported ? s.red(word)
                                                                 : s.dim(word);
      t.add_row({g.hip_index ? std::to_string(*g.hip_index) : "-", g.name, g.gfx.empty() ? "-" : g.gfx,
                 g.vram_bytes ? format_bytes(*g.vram_bytes) : "-",
                 g.integrated ? "integrated" : (g.vendor_id == detect::kVendorAmd ? "discrete" : "-"), status,
                 fmt::format("{}", fmt::join(g.seen_by, ", "))});
    }
    out += t.render();
  }
  out += "\n";
  ui::Table facts({"", ""});
  const auto& d = p.driver;
  if (p.os == platform::Os::windows) {
    facts.add_row({"Driver", d.module_loaded ? fmt::format("{} {}{}", d.driver_desc, d.version,
                                                           d.adrenalin_version.empty() ? "" : " (Adrenalin " + d.adrenalin_version + ")")
                                             : "no AMD display driver"});
  } else {
    std::string kfd = !d.kfd_present      ? "/dev/kfd missing"
                      : !d.kfd_accessible ? "/dev/kfd present"
                      : *d.kfd_accessible ? "/dev/kfd accessible"
                                          : "/dev/kfd not accessible";
    facts.add_row({"Driver", d.module_loaded ? fmt::format("amdgpu {}{}, {}", d.version.empty() ? "(in-kernel)" : d.version,
                                                           d.initstate.empty() ? "" : " (" + d.initstate + ")", kfd)
                                             : "amdgpu not loaded"});
  }
  const auto& r = p.hip_runtime;
  if (r.probed) {
    std::string version = r.runtime_version ? fmt::format("{}.{}", *r.runtime_version / 10000000, (*r.runtime_version / 100000) % 100) : "?";
    facts.add_row({"HIP runtime", r.loaded ? fmt::format("{} (HIP {}{}), {} device(s)", r.path, version,
                                                         r.file_version.empty() ? "" : ", file " + r.file_version, r.device_count.value_or(0))
                                           : "not found"});
    if (!r.zluda_choice.empty()) facts.add_row({"ZLUDA's HIP", r.zluda_choice});
  }
  if (const auto* h = p.selected_hip()) {
    std::string libs;
    for (const auto& l : h->libraries) {
      if (l.component == "hip-runtime" || l.component == "hipinfo") continue;
      libs += fmt::format("{}{} ", l.component, l.found ? s.green("✓") : s.red("✗"));
    }
    facts.add_row({p.os == platform::Os::windows ? "HIP SDK" : "ROCm",
                   fmt::format("{} at {} ({})", h->version.empty() ? "unknown version" : h->version, h->root, h->found_via)});
    facts.add_row({"Libraries", libs});
    for (const auto& [gfx, k] : h->kernels) {
      facts.add_row({"Kernels " + gfx,
                     fmt::format("rocBLAS {}  hipBLASLt {}", k.rocblas ? s.green("✓") : s.red("✗"), k.hipblaslt ? s.green("✓") : s.red("✗"))});
    }
  } else {
    facts.add_row({p.os == platform::Os::windows ? "HIP SDK" : "ROCm", s.red("not found")});
  }
  const auto& c = p.cuda;
  std::string cuda = c.nvidia_gpu ? "NVIDIA GPU present" : "no NVIDIA GPU";
  if (!c.toolkits.empty()) cuda += fmt::format("; CUDA toolkit at {}", fmt::join(c.toolkits, ", "));
  if (c.driver_stub_only) cuda += " (stub libcuda only)";
  facts.add_row({"CUDA", cuda});
  if (installed) facts.add_row({"ZLUDA runtime", describe_installed(*installed)});
  out += facts.render();
  out += render_backends(advices, s);

  if (!p.findings.empty()) {
    out += "\n" + s.bold("Findings") + "\n";
    for (const auto& f : p.findings) {
      std::string mark = f.severity == detect::Severity::error     ? s.red("✗ error  ")
                         : f.severity == detect::Severity::warning ? s.yellow("! warning")
                                                                   : s.cyan("i info   ");
      out += fmt::format("  {} {}  {}\n", mark, f.message, s.dim("[" + f.code + "]"));
      if (!f.hint.empty()) out += "              " + ui::notice_text(s, ui::NoticeKind::hint, f.hint) + "\n";
    }
  }
  return out;
}

}  // namespace

CommandRun setup_detect(CLI::App& sub) {
  auto options = std::make_shared<DetectOptions>();
  add_path_option(sub, "--root", options->root, "Read sysfs, /dev, /opt, /usr/share and /etc under DIR (a captured tree); skips loading libraries")
      ->check(kExistingDirectory);
  sub.add_flag("--no-hip", options->no_hip, "Do not load the HIP runtime library");
  sub.add_flag("--strict", options->strict, "Exit with code 10 when any finding is an error");
  sub.footer("Exit codes: 0 when detection ran (with --strict: and no error findings), 10 with --strict when the machine is not ready.");
  return [options](Context& context) -> Result<CommandOutput> {
    detect::Options detect_options;
    detect_options.root = options->root;
    detect_options.probe_hip_runtime = !options->no_hip;
    detect_options.environment = platform::current_environment();
    detect_options.measure_caches = true;
    auto profile = detect::detect_machine(detect_options);
    if (!profile) return std::unexpected(profile.error());
    // The installed runtime belongs to zcuda, not the machine: added here, from home.
    std::optional<InstalledRuntime> installed;
    if (!options->root) {
      if (auto quarantined = launch::quarantine_finding(context.home)) profile->findings.push_back(std::move(*quarantined));
      installed = launch::installed_runtime(context.home, platform::current_os());
    }
    // Knowledge far past its expiry misleads more than it helps (docs/knowledge.md): 60 days' grace.
    const auto& knowledge_in_use = knowledge::active();
    if (const auto late = knowledge::now() - knowledge_in_use.index.expires; late > std::chrono::days(60)) {
      profile->findings.push_back(
          {detect::Severity::warning, "knowledge-stale",
           fmt::format("The knowledge bundle in use ({}, {}) expired {} days ago", knowledge_in_use.index.version,
                       knowledge_in_use.compiled_in ? "compiled in" : "installed", std::chrono::duration_cast<std::chrono::days>(late).count()),
           "Run 'zcuda update' (docs/knowledge.md): pins, known failures and GPU tables may be out of date."});
    }
    // What serves each AMD GPU, from manifests/backends.json (docs/backends.md).
    auto table = backends::embedded_table();
    Advices advices = table ? Advices(backends::advise(*profile, **table)) : Advices(std::unexpected(table.error()));
    CommandOutput output;
    output.json = *profile;
    if (installed) output.json["zluda_runtime"] = installed_json(*installed);
    output.json["backends"] = advices ? nlohmann::json(*advices) : nlohmann::json{{"error", advices.error().message}};
    output.json["knowledge"] = knowledge::to_json(knowledge_in_use);
    output.text = render(*profile, installed, advices, context.style);
    if (options->strict && !profile->ready()) output.exit_code = exit_code(ErrorKind::environment);
    return output;
  };
}

}  // namespace zcuda::cli
