// Linux GPU enumeration: PCI sysfs lists every display device, DRM adds VRAM and the render
// node, KFD adds the gfx target and the order the HIP runtime will use.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "parsers.hpp"
#include "probes.hpp"
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/whole_number.hpp>

namespace zcuda::detect {

namespace fs = std::filesystem;

namespace {

std::optional<std::uint64_t> read_number(const SystemView& view, const fs::path& path) {
  auto line = view.read_line(path);
  if (!line) return std::nullopt;
  return whole_number<std::uint64_t>(*line);
}

std::optional<std::uint32_t> read_hex(const SystemView& view, const fs::path& path) {
  auto line = view.read_line(path);
  if (!line) return std::nullopt;
  auto id = parse_hex_id(*line);
  return id ? std::optional<std::uint32_t>(*id) : std::nullopt;
}

bool seen(const Gpu& gpu, const char* probe) { return std::find(gpu.seen_by.begin(), gpu.seen_by.end(), probe) != gpu.seen_by.end(); }

void add_seen(Gpu& gpu, const char* probe) {
  if (!seen(gpu, probe)) gpu.seen_by.push_back(probe);
}

// What one source knows of a PCI function; any part may be missing (partial sysfs in
// containers, a DRM uevent without PCI_SLOT_NAME, KFD without a location).
struct Sighting {
  std::optional<std::string> address;  // parse_pci_address spelling
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::optional<std::uint32_t> revision;
};

// The entry a source's sighting belongs to, so that each PCI function is listed once whichever
// sources saw it: the same address; else, where an address is missing on either side, the one
// entry of the same vendor and device that this source has not claimed yet (never a guess
// between identical cards).
Gpu* find_entry(Profile& profile, const Sighting& s, const char* probe) {
  if (s.address) {
    for (auto& g : profile.gpus) {
      if (g.pci_address == *s.address) return &g;
    }
  }
  Gpu* match = nullptr;
  int matches = 0;
  if (s.device_id != 0) {
    for (auto& g : profile.gpus) {
      if (seen(g, probe) || g.device_id != s.device_id) continue;
      if (s.vendor_id != 0 && g.vendor_id != 0 && g.vendor_id != s.vendor_id) continue;
      if (s.address && !g.pci_address.empty()) continue;  // both known and different: another function
      match = &g;
      ++matches;
    }
  }
  return matches == 1 ? match : nullptr;
}

// The sighting's entry (a new one when nothing matches), completed with what it adds.
Gpu& entry_for(Profile& profile, const Sighting& s, const char* probe) {
  Gpu* gpu = find_entry(profile, s, probe);
  if (gpu == nullptr) {
    profile.gpus.emplace_back();
    gpu = &profile.gpus.back();
  }
  // Fill in what the entry lacked.
  if (gpu->pci_address.empty() && s.address) gpu->pci_address = *s.address;
  if (gpu->vendor_id == 0) gpu->vendor_id = s.vendor_id;
  if (gpu->device_id == 0) gpu->device_id = s.device_id;
  if (!gpu->revision) gpu->revision = s.revision;
  add_seen(*gpu, probe);
  return *gpu;
}

// PCI class 0x03xxxx: VGA, XGA, 3D and other display controllers.
void probe_pci(const SystemView& view, Profile& profile) {
  const fs::path base = "/sys/bus/pci/devices";
  for (const auto& name : view.list(base)) {
    fs::path dir = base / name;
    auto cls = read_hex(view, dir / "class");
    if (!cls || (*cls >> 16) != 0x03) continue;
    Sighting s;
    s.address = parse_pci_address(name);
    if (!s.address) continue;
    s.vendor_id = read_hex(view, dir / "vendor").value_or(0);
    s.device_id = read_hex(view, dir / "device").value_or(0);
    s.revision = read_hex(view, dir / "revision");
    Gpu& gpu = entry_for(profile, s, "pci");
    auto uevent = parse_key_values(view.read(dir / "uevent").value_or(""));
    if (auto it = uevent.find("DRIVER"); it != uevent.end()) gpu.driver = it->second;
  }
}

// A DRM card's PCI function: PCI_SLOT_NAME in its uevent, else the name its `device` link points
// at ("../../../0000:03:00.0"), which sysfs always has even where the uevent is trimmed.
std::optional<std::string> drm_card_address(const SystemView& view, const fs::path& device, const std::map<std::string, std::string>& uevent) {
  if (auto it = uevent.find("PCI_SLOT_NAME"); it != uevent.end()) {
    if (auto address = parse_pci_address(it->second)) return address;
  }
  if (auto target = view.link_target(device)) return parse_pci_address(path_to_utf8(target->filename()));
  return std::nullopt;
}

void probe_drm(const SystemView& view, Profile& profile) {
  const fs::path base = "/sys/class/drm";
  for (const auto& card : view.list(base)) {
    // card0, card1, ...; connectors (card0-DP-1) and render nodes are not cards.
    if (!card.starts_with("card") || card.find('-') != std::string::npos) continue;
    fs::path device = base / card / "device";
    auto uevent = parse_key_values(view.read(device / "uevent").value_or(""));
    Sighting s;
    s.address = drm_card_address(view, device, uevent);
    s.vendor_id = read_hex(view, device / "vendor").value_or(0);
    s.device_id = read_hex(view, device / "device").value_or(0);
    s.revision = read_hex(view, device / "revision");
    // Neither an address nor ids: not a PCI function (simpledrm's firmware framebuffer).
    if (!s.address && s.device_id == 0) continue;
    Gpu* gpu = &entry_for(profile, s, "drm");
    if (auto it = uevent.find("DRIVER"); it != uevent.end()) gpu->driver = it->second;
    if (auto vram = read_number(view, device / "mem_info_vram_total")) gpu->vram_bytes = *vram;
    for (const auto& entry : view.list(device / "drm")) {
      if (entry.starts_with("renderD")) gpu->render_node = "/dev/dri/" + entry;
    }
    // amdgpu exposes board_info and mem_info_vram_vendor only for boards with their own VRAM.
    if (gpu->vendor_id == kVendorAmd && gpu->vram_bytes) {
      bool discrete_markers = view.exists(device / "board_info") || view.exists(device / "mem_info_vram_vendor");
      auto gtt = read_number(view, device / "mem_info_gtt_total");
      const std::uint64_t vram = *gpu->vram_bytes;
      constexpr std::uint64_t GiB = 1ull << 30;
      if (!discrete_markers && vram < GiB) {
        gpu->integrated = true;
        gpu->integrated_reason = "less than 1 GiB of dedicated VRAM";
      } else if (!discrete_markers && gtt && vram <= 4 * GiB && *gtt >= 8 * GiB && *gtt >= 4 * vram) {
        gpu->integrated = true;
        gpu->integrated_reason = "small VRAM carve-out with a large shared (GTT) pool";
      }
    }
  }
}

void probe_kfd(const SystemView& view, Profile& profile) {
  const fs::path base = "/sys/class/kfd/kfd/topology/nodes";
  std::vector<std::pair<int, std::string>> nodes;
  for (const auto& name : view.list(base)) {
    if (const auto id = whole_number<int>(name)) nodes.emplace_back(*id, name);
  }
  std::sort(nodes.begin(), nodes.end());  // numeric order is the order HIP enumerates
  int hip_index = 0;
  for (const auto& [id, name] : nodes) {
    fs::path file = base / name / "properties";
    auto text = view.read(file);
    if (!text) {
      if (text.error().kind != ErrorKind::not_found) {
        profile.probe_notes.push_back(fmt::format("kfd: cannot read {}: {}", path_to_utf8(file), text.error().message));
        profile.findings.push_back({Severity::error, "kfd-properties-unreadable",
                                    fmt::format("The KFD topology of node {} cannot be read ({})", id, text.error().message),
                                    "ROCm programs will not see this GPU. In a container, allow the device (--device /dev/kfd --device /dev/dri); "
                                    "otherwise check that the device cgroup or a security policy does not deny access."});
      }
      continue;
    }
    auto props = parse_kfd_properties(*text);
    if (!props) {
      profile.probe_notes.push_back(fmt::format("kfd: {} is malformed: {}", path_to_utf8(file), props.error().message));
      continue;
    }
    auto value = [&](const char* key) -> std::uint64_t {
      auto it = props->find(key);
      return it == props->end() ? 0 : it->second;
    };
    if (value("simd_count") == 0 || value("gfx_target_version") == 0) continue;  // a CPU node
    auto gfx = gfx_from_target_version(value("gfx_target_version"));
    Sighting s;
    // location_id is bus << 8 | device << 3 | function; 0 with domain 0 means KFD was not told.
    const std::uint64_t location = value("location_id");
    if (location != 0 || value("domain") != 0) {
      s.address =
          parse_pci_address(fmt::format("{:04x}:{:02x}:{:02x}.{:x}", value("domain"), (location >> 8) & 0xff, (location >> 3) & 0x1f, location & 7));
    }
    s.vendor_id = static_cast<std::uint32_t>(value("vendor_id"));
    s.device_id = static_cast<std::uint32_t>(value("device_id"));
    Gpu* gpu = &entry_for(profile, s, "kfd");
    gpu->kfd_node = id;
    gpu->hip_index = hip_index++;
    if (gfx && !gfx->empty()) {
      gpu->gfx = *gfx;
      gpu->gfx_source = Source::kfd;
    } else if (!gfx) {
      profile.probe_notes.push_back(fmt::format("kfd node {}: {}", id, gfx.error().message));
    }
    if (gpu->render_node.empty() && value("drm_render_minor") != 0) {
      gpu->render_node = fmt::format("/dev/dri/renderD{}", value("drm_render_minor"));
    }
  }
}

}  // namespace

void probe_linux_gpus(const SystemView& view, Profile& profile) {
  probe_pci(view, profile);
  probe_drm(view, profile);
  probe_kfd(view, profile);
}

}  // namespace zcuda::detect
