// What serves each AMD GPU: the rules of docs/backends.md over manifests/backends.json.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <zcuda/backends/backends.hpp>

namespace zcuda::backends {

namespace {

std::string os_name(platform::Os os) { return os == platform::Os::windows ? "Windows" : "Linux"; }

void add_source(Advice& a, const Table& table, const std::string& key) {
  const SourceRef* s = table.source(key);
  if (s && std::find(a.sources.begin(), a.sources.end(), s->url) == a.sources.end()) a.sources.push_back(s->url);
}

// "SD.Next, StabilityMatrix and ComfyUI-Zluda": the applications behind source keys.
std::string application_names(const std::vector<std::string>& keys) {
  std::vector<std::string> names;
  for (const auto& key : keys) {
    std::string name = key.starts_with("sdnext")            ? "SD.Next"
                       : key.starts_with("stabilitymatrix") ? "StabilityMatrix"
                       : key.starts_with("comfyui-zluda")   ? "ComfyUI-Zluda's README"
                                                            : key;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.size() <= 1) return names.empty() ? std::string() : names[0];
  std::vector<std::string> head(names.begin(), names.end() - 1);
  return fmt::format("{} and {}", fmt::join(head, ", "), names.back());
}

std::string setup_words(const ZludaSetup& z) {
  if (z.family == "upstream") return "upstream ZLUDA (vosen/ZLUDA)";
  std::string out = "lshqqytiger's ZLUDA";
  if (z.hip_sdk) out += " with HIP SDK " + *z.hip_sdk;
  if (z.min_driver) out += fmt::format(" (driver above {})", *z.min_driver);
  return out;
}

void native_install(Advice& a, const Table& table, const std::string& gfx) {
  const Channel* c = table.channel(table.advice_channel);
  if (!c || !c->index_url || std::find(c->os.begin(), c->os.end(), a.os) == c->os.end()) return;
  a.pytorch_install = {"--index-url", *c->index_url};
  for (std::string p : c->packages) {
    for (std::size_t at = p.find("{gfx}"); at != std::string::npos; at = p.find("{gfx}", at)) p.replace(at, 5, gfx);
    a.pytorch_install.push_back(std::move(p));
  }
  a.python = c->python;
  for (const auto& key : c->sources) add_source(a, table, key);
}

void hip_sdk_notes(Advice& a, const Arch& arch, const Table& table) {
  std::vector<std::string> with_libraries, runtime_only, unsupported;
  for (const auto& [version, support] : arch.hip_sdk) {
    (support == HipSdkSupport::sdk ? with_libraries : support == HipSdkSupport::runtime ? runtime_only : unsupported).push_back(version);
    add_source(a, table, table.hip_sdk_tables.at(version));
  }
  if (!unsupported.empty() && !with_libraries.empty()) {
    a.notes.push_back(fmt::format("HIP SDK {} marks {} unsupported; HIP SDK {} lists it with libraries: keep the HIP SDK ZLUDA uses at one of those.",
                                  fmt::join(unsupported, ", "), arch.gfx, fmt::join(with_libraries, ", ")));
  } else if (!unsupported.empty()) {
    a.notes.push_back(fmt::format("HIP SDK {} marks {} unsupported: ZLUDA needs community rocBLAS libraries for it (the setups above name them).",
                                  fmt::join(unsupported, ", "), arch.gfx));
  }
  if (!runtime_only.empty()) {
    a.notes.push_back(
        fmt::format("HIP SDK {} ships only the runtime for {}, no rocBLAS kernels: cuBLAS calls through ZLUDA need community libraries.",
                    fmt::join(runtime_only, ", "), arch.gfx));
  }
}

}  // namespace

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::native_rocm:
      return "native-rocm";
    case Backend::zluda:
      return "zluda";
    case Backend::none:
      return "none";
  }
  return "none";
}

Advice advise_gfx(std::string_view gfx, platform::Os os, const Table& table) {
  Advice a;
  a.gfx = std::string(gfx);
  a.os = os;
  const std::string where = os_name(os);
  const Arch* arch = gfx.empty() ? nullptr : table.find(gfx);
  if (!arch) {
    a.pytorch_basis = "unknown";
    a.pytorch_reason = gfx.empty() ? "zcuda does not know this GPU's gfx target, so no source can be matched to it"
                                   : fmt::format("manifests/backends.json has no row for {}: no source was read for it", gfx);
    a.cuda_only = Backend::zluda;
    a.cuda_only_reason = "CUDA-only programs run on AMD only through ZLUDA; whether a ZLUDA family serves this GPU is unknown";
    return a;
  }
  a.known = true;

  const auto& rocm = arch->rocm(os);
  const bool wheel = rocm && rocm->extra;
  const std::string status = rocm ? std::string(to_string(rocm->status)) : "none";
  const std::vector<std::string> adopters = os == platform::Os::windows ? arch->native_pytorch_on_windows_by : std::vector<std::string>{};
  std::vector<ZludaSetup> setups;
  if (arch->zluda_upstream) setups.push_back(table.zluda_setups.at("upstream"));
  if (os == platform::Os::windows) {
    for (const auto& id : arch->zluda_windows) setups.push_back(table.zluda_setups.at(id));
  }
  if (rocm) add_source(a, table, rocm->source);
  for (const auto& key : adopters) add_source(a, table, key);

  const std::string therock = fmt::format("TheRock's SUPPORTED_GPUS.md marks {} {} on {}", arch->gfx, status, where);
  if (wheel && rocm->status == RocmStatus::release_ready) {
    a.pytorch = Backend::native_rocm;
    a.pytorch_basis = status;
    a.pytorch_reason = therock;
    if (!adopters.empty()) a.pytorch_reason += fmt::format("; {} install native ROCm PyTorch for it", application_names(adopters));
  } else if (wheel && !adopters.empty()) {
    a.pytorch = Backend::native_rocm;
    a.pytorch_basis = status;
    a.pytorch_reason = fmt::format("{}, not release-ready, yet {} install native ROCm PyTorch for it; ZLUDA remains the fallback: measure both",
                                   therock, application_names(adopters));
  } else if (!setups.empty()) {
    a.pytorch = Backend::zluda;
    a.pytorch_basis = "zluda";
    a.pytorch_reason = wheel ? fmt::format("{}: its wheels install but are unverified; ZLUDA serves the GPU", therock)
                       : rocm && rocm->status != RocmStatus::none
                           ? fmt::format("{}, with no PyTorch wheel for it; ZLUDA serves the GPU", therock)
                           : fmt::format("TheRock publishes no ROCm PyTorch for {} on {}; ZLUDA serves the GPU", arch->gfx, where);
  } else if (wheel) {
    a.pytorch = Backend::native_rocm;
    a.pytorch_basis = status;
    a.pytorch_reason =
        fmt::format("{}: only its unverified native build exists; no ZLUDA family is known to serve {} on {}", therock, arch->gfx, where);
  } else {
    a.pytorch = Backend::none;
    a.pytorch_basis = "none";
    a.pytorch_reason =
        rocm && rocm->status != RocmStatus::none
            ? fmt::format("{}, with no PyTorch wheel for it, and no ZLUDA family is known to serve it there", therock)
            : fmt::format("TheRock's SUPPORTED_GPUS.md does not list {}, and no ZLUDA family is known to serve it on {}", arch->gfx, where);
  }
  if (rocm && !rocm->note.empty()) a.notes.push_back(rocm->note);
  if (a.pytorch == Backend::native_rocm) native_install(a, table, arch->gfx);

  a.zluda = setups;
  for (const auto& z : setups) {
    for (const auto& key : z.sources) add_source(a, table, key);
  }
  if (setups.empty()) {
    a.cuda_only = Backend::none;
    a.cuda_only_reason = os == platform::Os::windows
                             ? fmt::format("no ZLUDA family is known to serve {}: upstream ZLUDA supports RX 5000 (RDNA) and newer only", arch->gfx)
                             : fmt::format(
                                   "no ZLUDA family is known to serve {} on Linux: upstream ZLUDA supports RX 5000 (RDNA) and newer only, "
                                   "and the lshqqytiger setups the sources describe are Windows ones",
                                   arch->gfx);
    add_source(a, table, "zluda-faq");
  } else {
    a.cuda_only = Backend::zluda;
    std::vector<std::string> words;
    for (const auto& z : setups) words.push_back(setup_words(z));
    a.cuda_only_reason = fmt::format("through {}", fmt::join(words, "; or "));
  }
  if (os == platform::Os::windows) {
    hip_sdk_notes(a, *arch, table);
    if (!arch->note.empty()) a.notes.push_back(arch->note);
  }
  return a;
}

std::vector<Advice> advise(const detect::Profile& profile, const Table& table) {
  std::vector<Advice> out;
  for (const auto& g : profile.gpus) {
    if (g.vendor_id != detect::kVendorAmd) continue;
    Advice a = advise_gfx(g.gfx, profile.os, table);
    a.gpu = g.name.empty() ? fmt::format("AMD GPU {:04x}", g.device_id) : g.name;
    a.hip_index = g.hip_index;
    out.push_back(std::move(a));
  }
  return out;
}

void to_json(nlohmann::json& out, const Advice& a) {
  nlohmann::json setups = nlohmann::json::array();
  for (const auto& z : a.zluda) {
    setups.push_back({{"id", z.id},
                      {"family", z.family},
                      {"hip_sdk", z.hip_sdk ? nlohmann::json(*z.hip_sdk) : nlohmann::json(nullptr)},
                      {"min_driver", z.min_driver ? nlohmann::json(*z.min_driver) : nlohmann::json(nullptr)}});
  }
  out = {{"gpu", a.gpu},
         {"gfx", a.gfx.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.gfx)},
         {"hip_index", a.hip_index ? nlohmann::json(*a.hip_index) : nlohmann::json(nullptr)},
         {"os", platform::os_id(a.os)},
         {"known", a.known},
         {"pytorch",
          {{"backend", to_string(a.pytorch)},
           {"basis", a.pytorch_basis},
           {"reason", a.pytorch_reason},
           {"pip_install", a.pytorch_install.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.pytorch_install)},
           {"python", a.python ? nlohmann::json(*a.python) : nlohmann::json(nullptr)}}},
         {"cuda_only", {{"backend", to_string(a.cuda_only)}, {"zluda", setups}, {"reason", a.cuda_only_reason}}},
         {"notes", a.notes},
         {"sources", a.sources}};
}

}  // namespace zcuda::backends
