// Linux GPU enumeration: PCI sysfs lists every display device, DRM adds VRAM and the render
// node, KFD adds the gfx target and the order the HIP runtime will use.
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "parsers.hpp"
#include "probes.hpp"

namespace zcuda::detect {

namespace fs = std::filesystem;

namespace {

std::optional<std::uint64_t> read_number(const SystemView& view, const fs::path& path) {
  auto line = view.read_line(path);
  if (!line || line->empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(line->data(), line->data() + line->size(), value);
  if (ec != std::errc() || ptr != line->data() + line->size()) return std::nullopt;
  return value;
}

std::optional<std::uint32_t> read_hex(const SystemView& view, const fs::path& path) {
  auto line = view.read_line(path);
  if (!line) return std::nullopt;
  auto id = parse_hex_id(*line);
  return id ? std::optional<std::uint32_t>(*id) : std::nullopt;
}

void add_seen(Gpu& gpu, const char* probe) {
  if (std::find(gpu.seen_by.begin(), gpu.seen_by.end(), probe) == gpu.seen_by.end()) gpu.seen_by.push_back(probe);
}

Gpu* find_by_address(Profile& profile, const std::string& address) {
  for (auto& g : profile.gpus) {
    if (!address.empty() && g.pci_address == address) return &g;
  }
  return nullptr;
}

// PCI class 0x03xxxx: VGA, XGA, 3D and other display controllers.
void probe_pci(const SystemView& view, Profile& profile) {
  const fs::path base = "/sys/bus/pci/devices";
  for (const auto& address : view.list(base)) {
    fs::path dir = base / address;
    auto cls = read_hex(view, dir / "class");
    if (!cls || (*cls >> 16) != 0x03) continue;
    Gpu gpu;
    gpu.pci_address = address;
    gpu.vendor_id = read_hex(view, dir / "vendor").value_or(0);
    gpu.device_id = read_hex(view, dir / "device").value_or(0);
    gpu.revision = read_hex(view, dir / "revision");
    auto uevent = parse_key_values(view.read(dir / "uevent").value_or(""));
    if (auto it = uevent.find("DRIVER"); it != uevent.end()) gpu.driver = it->second;
    add_seen(gpu, "pci");
    profile.gpus.push_back(std::move(gpu));
  }
}

void probe_drm(const SystemView& view, Profile& profile) {
  const fs::path base = "/sys/class/drm";
  for (const auto& card : view.list(base)) {
    // card0, card1, ...; connectors (card0-DP-1) and render nodes are not cards.
    if (!card.starts_with("card") || card.find('-') != std::string::npos) continue;
    fs::path device = base / card / "device";
    auto uevent = parse_key_values(view.read(device / "uevent").value_or(""));
    std::string address = uevent.count("PCI_SLOT_NAME") ? uevent["PCI_SLOT_NAME"] : std::string();
    Gpu* gpu = find_by_address(profile, address);
    if (gpu == nullptr) {
      Gpu fresh;
      fresh.pci_address = address;
      fresh.vendor_id = read_hex(view, device / "vendor").value_or(0);
      fresh.device_id = read_hex(view, device / "device").value_or(0);
      fresh.revision = read_hex(view, device / "revision");
      profile.gpus.push_back(std::move(fresh));
      gpu = &profile.gpus.back();
    }
    add_seen(*gpu, "drm");
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
    int id = 0;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec == std::errc() && ptr == name.data() + name.size()) nodes.emplace_back(id, name);
  }
  std::sort(nodes.begin(), nodes.end());  // numeric order is the order HIP enumerates
  int hip_index = 0;
  for (const auto& [id, name] : nodes) {
    fs::path file = base / name / "properties";
    auto text = view.read(file);
    if (!text) {
      if (text.error().kind != ErrorKind::not_found) {
        profile.probe_notes.push_back(fmt::format("kfd: cannot read {}: {}", file.string(), text.error().message));
        profile.findings.push_back({Severity::error, "kfd-properties-unreadable",
                                    fmt::format("The KFD topology of node {} cannot be read ({})", id, text.error().message),
                                    "ROCm programs will not see this GPU. In a container, allow the device (--device /dev/kfd --device /dev/dri); "
                                    "otherwise check that the device cgroup or a security policy does not deny access."});
      }
      continue;
    }
    auto props = parse_kfd_properties(*text);
    if (!props) {
      profile.probe_notes.push_back(fmt::format("kfd: {} is malformed: {}", file.string(), props.error().message));
      continue;
    }
    auto value = [&](const char* key) -> std::uint64_t {
      auto it = props->find(key);
      return it == props->end() ? 0 : it->second;
    };
    if (value("simd_count") == 0 || value("gfx_target_version") == 0) continue;  // a CPU node
    auto gfx = gfx_from_target_version(value("gfx_target_version"));
    std::uint64_t location = value("location_id");
    std::string address = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", value("domain"), location >> 8, (location >> 3) & 0x1f, location & 7);
    Gpu* gpu = find_by_address(profile, address);
    if (gpu == nullptr) {
      // No PCI sysfs (some containers): match on the device id when it is unambiguous.
      auto matches = std::count_if(profile.gpus.begin(), profile.gpus.end(), [&](const Gpu& g) {
        return g.device_id == value("device_id") && !g.kfd_node;
      });
      if (matches == 1) {
        gpu = &*std::find_if(profile.gpus.begin(), profile.gpus.end(), [&](const Gpu& g) { return g.device_id == value("device_id") && !g.kfd_node; });
      }
    }
    if (gpu == nullptr) {
      Gpu fresh;
      fresh.vendor_id = static_cast<std::uint32_t>(value("vendor_id"));
      fresh.device_id = static_cast<std::uint32_t>(value("device_id"));
      fresh.pci_address = address;
      profile.gpus.push_back(std::move(fresh));
      gpu = &profile.gpus.back();
    }
    add_seen(*gpu, "kfd");
    gpu->kfd_node = id;
    gpu->hip_index = hip_index++;
    if (gfx && !gfx->empty()) {
      gpu->gfx = *gfx;
      gpu->gfx_source = "kfd";
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
