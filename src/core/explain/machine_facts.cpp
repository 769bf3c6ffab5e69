// Filling an entry with this machine's facts: the gfx the message names (else the machine's),
// the GPUs, driver, HIP SDK, MIOpen and kernel files that matter to it.
#include <zcuda/explain/explain.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <zcuda/family/family.hpp>
#include <zcuda/detect/detect.hpp>
#include <zcuda/launch/detected.hpp>
#include <zcuda/launch/quarantine.hpp>
#include <zcuda/launch/runtime_family.hpp>
#include <zcuda/platform/process.hpp>

namespace zcuda::explain {

namespace {

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
}

std::string describe_gpu(const detect::Gpu& g) {
  std::string out = g.name.empty() ? fmt::format("{:04x}:{:04x}", g.vendor_id, g.device_id) : g.name;
  std::vector<std::string> parts;
  if (!g.gfx.empty()) parts.push_back(g.gfx);
  if (g.vendor_id == detect::kVendorAmd) parts.push_back(g.integrated ? "integrated" : "discrete");
  if (g.hip_index) parts.push_back(fmt::format("HIP index {}", *g.hip_index));
  if (!parts.empty()) out += " (" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
  return out;
}

std::vector<const detect::Gpu*> amd_gpus(const detect::Profile& p) {
  std::vector<const detect::Gpu*> out;
  for (const auto& g : p.gpus) {
    if (g.vendor_id == detect::kVendorAmd) out.push_back(&g);
  }
  return out;
}

const detect::HipLibrary* library(const detect::HipInstall& hip, std::string_view component) {
  for (const auto& l : hip.libraries) {
    if (l.component == component) return &l;
  }
  return nullptr;
}

bool non_ascii(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

std::string archs(const std::vector<std::string>& list) { return list.empty() ? "none" : fmt::format("{}", fmt::join(list, ", ")); }

// One fact as sentences; empty when there is nothing to say.
std::vector<std::string> fact(std::string_view key, const MachineFacts& m, const std::optional<std::string>& gfx, const Match& match) {
  if (key == "user_folder") {
    if (m.user_folder.empty()) return {};
    return {non_ascii(m.user_folder) ? fmt::format("Your user folder {} holds non-ASCII letters: this is the cause here.", m.user_folder)
                                     : fmt::format("Your user folder {} is ASCII only; look at where MIOPEN_USER_DB_PATH points.", m.user_folder)};
  }
  if (key == "quarantine") {
    if (m.quarantined.empty()) return {"zcuda's installed runtime has none of its files missing or empty."};
    return {fmt::format("Runtime files the install receipt lists that are now missing or empty (likely quarantined): {}.",
                        fmt::join(m.quarantined, ", "))};
  }
  if (key == "runtime_family") {
    if (!m.runtime_family) return {};
    return {fmt::format("The ZLUDA runtime in use is of the {} family.", *m.runtime_family)};
  }
  if (!m.profile) return {};
  const detect::Profile& p = *m.profile;
  const detect::HipInstall* hip = p.selected_hip();
  if (key == "gpus") {
    const auto amd = amd_gpus(p);
    if (amd.empty()) return {"zcuda found no AMD GPU on this machine."};
    std::vector<std::string> names;
    for (const auto* g : amd) names.push_back(describe_gpu(*g));
    return {fmt::format("This machine's AMD GPUs: {}.", fmt::join(names, "; "))};
  }
  if (key == "message_gpu") {
    if (!match.gfx) return {};
    const auto amd = amd_gpus(p);
    auto it = std::find_if(amd.begin(), amd.end(), [&](auto* g) { return g->gfx == *match.gfx; });
    if (it == amd.end()) {
      return {amd.empty() ? std::string{}
                          : fmt::format("{} is not one of this machine's GPUs: the message may come from another machine.", *match.gfx)};
    }
    if ((*it)->integrated) {
      auto discrete = std::find_if(amd.begin(), amd.end(), [](auto* g) { return !g->integrated; });
      if (discrete != amd.end()) {
        return {fmt::format("{} is this machine's integrated GPU: the program used it instead of the discrete {}.{}", *match.gfx,
                            describe_gpu(**discrete),
                            (*discrete)->hip_index ? fmt::format(" Select it with HIP_VISIBLE_DEVICES={}.", *(*discrete)->hip_index) : "")};
      }
      return {fmt::format("{} is this machine's integrated GPU, and it has no discrete AMD GPU.", *match.gfx)};
    }
    return {fmt::format("{} is this machine's {}.", *match.gfx, describe_gpu(**it))};
  }
  if (key == "driver") {
    const auto& d = p.driver;
    if (d.adrenalin_version.starts_with("25.5.1")) {
      return {fmt::format("AMD driver: Adrenalin {} (driver version {}), the release that broke ZLUDA builds made before it.", d.adrenalin_version,
                          d.version.empty() ? "unknown" : d.version)};
    }
    if (!d.adrenalin_version.empty() || (!d.version.empty() && p.os == platform::Os::windows)) {
      return {fmt::format("AMD driver: Adrenalin {} (driver version {}).", d.adrenalin_version.empty() ? "unknown" : d.adrenalin_version,
                          d.version.empty() ? "unknown" : d.version)};
    }
    if (p.os == platform::Os::linux) {
      if (!d.module_loaded) return {"AMD driver: the amdgpu kernel module is not loaded."};
      return {
          fmt::format("AMD driver: amdgpu{}{}.", d.version.empty() ? "" : " " + d.version, d.kfd_present ? ", /dev/kfd present" : ", no /dev/kfd")};
    }
    return {"AMD driver: zcuda found none."};
  }
  if (key == "hip_sdk") {
    if (hip == nullptr) return {"No HIP SDK or ROCm was found on this machine."};
    return {
        fmt::format("HIP SDK / ROCm {} at {} (found via {}).", hip->version.empty() ? "(version unknown)" : hip->version, hip->root, hip->found_via)};
  }
  if (key == "miopen") {
    if (hip == nullptr) return {};
    const auto* lib = library(*hip, "miopen");
    return {lib != nullptr && lib->found ? fmt::format("MIOpen: {}.", lib->path) : fmt::format("MIOpen: not in the HIP SDK at {}.", hip->root)};
  }
  if (key == "rocblas_kernels" || key == "hipblaslt_kernels") {
    if (hip == nullptr || !gfx) return {};
    const bool rocblas = key == "rocblas_kernels";
    const auto* lib = library(*hip, rocblas ? "rocblas" : "hipblaslt");
    const std::string name = rocblas ? "rocBLAS" : "hipBLASLt";
    if (lib == nullptr || !lib->found) return {fmt::format("{}: not in the HIP SDK at {}.", name, hip->root)};
    const auto k = hip->kernels.find(*gfx);
    const bool has = k != hip->kernels.end() && (rocblas ? k->second.rocblas : k->second.hipblaslt);
    const auto& all = rocblas ? hip->rocblas_archs : hip->hipblaslt_archs;
    const bool listed = std::find(all.begin(), all.end(), *gfx) != all.end();
    if (has || listed) return {fmt::format("{} at {} has kernels for {}.", name, hip->root, *gfx)};
    return {fmt::format("{} at {} has no kernels for {} (it has: {}).", name, hip->root, *gfx, archs(all))};
  }
  if (key == "cuda_shadowing") {
    if (p.cuda.shadowing.empty()) return {};
    return {fmt::format("CUDA libraries on the loader's path that would be found before ZLUDA's: {}.", fmt::join(p.cuda.shadowing, ", "))};
  }
  return {};
}

}  // namespace

MachineFacts gather_machine_facts(const home::Home& home) {
  auto facts = machine_facts(launch::detect_for_launch(), launch::quarantined_files(home));
  // The installed runtime's family, its digests from the receipt (no 68 MB hash per explain).
  if (auto installed = launch::installed_runtime(home, platform::current_os()); installed && *installed) {
    facts.quarantine_checked = true;
    if ((*installed)->family.family != family::Family::unknown) facts.runtime_family = std::string(family::to_string((*installed)->family.family));
  }
  return facts;
}

MachineFacts machine_facts(std::optional<detect::Profile> profile, std::vector<std::string> quarantined) {
  MachineFacts facts;
  facts.profile = std::move(profile);
  // Explanations name the kernel files the HIP SDK has for this GPU.
  if (facts.profile) detect::add_kernel_support(*facts.profile);
  facts.quarantined = std::move(quarantined);
  const auto env = platform::current_environment();
  const auto os = platform::current_os();
  if (auto key = platform::variable_key(env, os == platform::Os::windows ? "USERPROFILE" : "HOME", os)) facts.user_folder = env.at(*key);
  return facts;
}

Explanation explain_match(const Match& match, const MachineFacts& machine) {
  const Entry& e = *match.entry;
  Explanation out;
  out.id = e.id;
  out.source = e.source;
  out.matched_line = match.line;
  out.line_number = match.line_number;
  out.gfx = match.gfx;
  if (!out.gfx && machine.profile) out.gfx = launch::settings_from_profile(*machine.profile).gfx;
  const std::string gfx_text = out.gfx.value_or("your GPU's gfx target");
  const std::string captured = match.captured.empty() ? "the library" : match.captured;
  auto fill = [&](std::string text) {
    replace_all(text, "{gfx}", gfx_text);
    replace_all(text, "{captured}", captured);
    return text;
  };
  out.title = fill(e.title);
  out.cause = fill(e.cause);
  out.fix = fill(e.fix);
  if (!e.causes.empty()) {
    out.causes = rank_causes(e, machine);
    for (auto& c : out.causes) {
      c.cause = fill(c.cause);
      c.fix = fill(c.fix);
    }
    out.cause = out.causes.front().cause;
    out.fix = out.causes.front().fix;
  }
  for (const auto& key : e.facts) {
    for (auto& sentence : fact(key, machine, out.gfx, match)) {
      if (!sentence.empty()) out.facts.push_back(std::move(sentence));
    }
  }
  return out;
}

std::optional<Explanation> explain_failure(std::string_view stderr_tail, const MachineFacts& machine, std::optional<std::uint32_t> exit_status) {
  auto kb = builtin_knowledge_base();
  if (!kb) return std::nullopt;
  auto picked = pick_failure(match_text(**kb, stderr_tail), exit_status ? match_exit_status(**kb, *exit_status) : std::nullopt);
  if (!picked) return std::nullopt;
  return explain_match(*picked, machine);
}

}  // namespace zcuda::explain
