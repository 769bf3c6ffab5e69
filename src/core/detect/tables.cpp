#include "tables.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/enum_words.hpp>
#include <zcuda/manifest/knowledge.hpp>

#include "parsers.hpp"

namespace zcuda::detect {

namespace {

const nlohmann::json& table(std::string_view name) {
  static const nlohmann::json names = nlohmann::json::parse(knowledge::find("amd-gpu-names.json").value_or("{}"), nullptr, false);
  static const nlohmann::json support = nlohmann::json::parse(knowledge::find("gpu-support.json").value_or("{}"), nullptr, false);
  return name == "names" ? names : support;
}

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string_view to_string(GpuSupport support) {
  switch (support) {
    case GpuSupport::validated:
      return "validated";
    case GpuSupport::candidate:
      return "candidate";
    case GpuSupport::unsupported:
      return "unsupported";
    case GpuSupport::not_amd:
      return "not-amd";
  }
  return "unsupported";
}

std::string_view to_string(Source source) {
  switch (source) {
    case Source::none:
      return "";
    case Source::kfd:
      return "kfd";
    case Source::hip:
      return "hip";
    case Source::zcuda_table:
      return "zcuda-table";
    case Source::amdgpu_ids:
      return "amdgpu.ids";
    case Source::pci_ids:
      return "pci.ids";
    case Source::pci_id:
      return "pci-id";
    case Source::dxgi:
      return "dxgi";
    case Source::registry:
      return "registry";
  }
  return "";
}

std::optional<GpuSupport> gpu_support_from(std::string_view word) {
  return enum_from_word(word, {GpuSupport::validated, GpuSupport::candidate, GpuSupport::unsupported, GpuSupport::not_amd});
}

std::optional<KnownDevice> lookup_amd_device(std::uint32_t device_id, std::optional<std::uint32_t> revision) {
  const auto& devices = table("names").value("devices", nlohmann::json::array());
  for (const auto& d : devices) {
    auto id = parse_hex_id(text(d, "device"));
    if (!id || *id != device_id) continue;
    KnownDevice known{text(d, "family_name"), text(d, "chip"), text(d, "gfx"), false};
    if (revision) {
      const nlohmann::json revisions = d.value("revisions", nlohmann::json::object());
      for (const auto& [rev, name] : revisions.items()) {
        auto r = parse_hex_id(rev);
        if (r && *r == *revision && name.is_string()) {
          known.name = name.get<std::string>();
          known.exact = true;
        }
      }
    }
    return known;
  }
  return std::nullopt;
}

bool pre_rdna(std::string_view gfx) {
  // gfx8xx (Polaris), gfx9xx (Vega, CDNA: gfx908, gfx90a, gfx94x): three characters after "gfx";
  // RDNA targets have four (gfx1010 and up).
  return gfx.starts_with("gfx") && gfx.size() == 6;
}

ArchSupport arch_support(const std::string& gfx) {
  const auto& support = table("support");
  for (const auto& a : support.value("archs", nlohmann::json::array())) {
    if (text(a, "gfx") == gfx) {
      // validate_embedded_tables holds every listed status to validated or candidate.
      return {gfx,
              gpu_support_from(text(a, "status")).value_or(GpuSupport::unsupported),
              text(a, "min_hip_sdk"),
              text(a, "max_hip_sdk"),
              text(a, "source"),
              text(a, "cards")};
    }
  }
  ArchSupport unsupported{gfx, GpuSupport::unsupported, "", "", "manifests/gpu-support.json (not listed)", ""};
  if (pre_rdna(gfx)) {
    unsupported.source = "vosen/ZLUDA docs/src/faq.md";
    unsupported.note = "upstream ZLUDA supports RX 5000 series (RDNA) and newer GPUs only; Polaris, Vega and server (CDNA) GPUs are not supported";
  }
  return unsupported;
}

Status validate_embedded_tables() {
  const auto& names = table("names");
  const auto& support = table("support");
  if (names.is_discarded() || !names.contains("devices")) return fail(ErrorKind::internal, "amd-gpu-names.json is malformed");
  if (support.is_discarded() || !support.contains("archs")) return fail(ErrorKind::internal, "gpu-support.json is malformed");
  for (const auto& d : names["devices"]) {
    if (!parse_hex_id(text(d, "device"))) return fail(ErrorKind::internal, fmt::format("bad device id in amd-gpu-names.json: {}", d.dump()));
  }
  for (const auto& a : support["archs"]) {
    auto status = gpu_support_from(text(a, "status"));
    if (status != GpuSupport::validated && status != GpuSupport::candidate)
      return fail(ErrorKind::internal, fmt::format("bad status in gpu-support.json: {}", a.dump()));
    if (text(a, "source").empty()) return fail(ErrorKind::internal, fmt::format("entry without a source in gpu-support.json: {}", a.dump()));
  }
  return {};
}

}  // namespace zcuda::detect
