// One PCI function, one entry: whichever of PCI sysfs, DRM and KFD saw a GPU, and whatever each of
// them left out, detection lists it once. The trees are built here, shaped like sysfs: its links
// where sysfs has links, missing files where containers and trimmed uevents miss them.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <zcuda/detect/detect.hpp>

#include "detect_test_util.hpp"
#include "parsers.hpp"
#include "support/temp_dir.hpp"

namespace zcuda::detect {
namespace {

namespace fs = std::filesystem;

class SysfsTree {
 public:
  const fs::path& root() const { return dir_.path(); }

  void write(const std::string& path, const std::string& text) { test::write_file(root() / path, text); }

  // /sys/devices/pci0000:00/<address> with its ids, and /sys/bus/pci/devices/<address> linking to it.
  void pci_function(const std::string& address, unsigned device_id, bool bus_entry = true) {
    const std::string dir = "sys/devices/pci0000:00/" + address;
    write(dir + "/vendor", "0x1002\n");
    write(dir + "/device", fmt::format("0x{:04x}\n", device_id));
    write(dir + "/revision", "0xc0\n");
    write(dir + "/class", "0x030000\n");
    write(dir + "/uevent", fmt::format("DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:{:04X}\nPCI_SLOT_NAME={}\n", device_id, address));
    if (bus_entry) link("sys/bus/pci/devices/" + address, "../../../devices/pci0000:00/" + address);
  }

  // /sys/class/drm/cardN with `device` linking to the PCI function, and a uevent without
  // PCI_SLOT_NAME (as some kernels and container runtimes present it).
  void drm_card_linked(int card, const std::string& address) {
    const std::string dir = "sys/devices/pci0000:00/" + address;
    write(dir + "/uevent", "DRIVER=amdgpu\n");  // trimmed: no PCI_SLOT_NAME
    write(dir + "/mem_info_vram_total", std::to_string(16ull << 30) + "\n");
    write(dir + "/mem_info_vram_vendor", "samsung\n");
    write(dir + fmt::format("/drm/renderD{}/dev", 128 + card), "226:128\n");
    fs::create_directories(root() / fmt::format("sys/class/drm/card{}", card));
    link(fmt::format("sys/class/drm/card{}/device", card), "../../../devices/pci0000:00/" + address);
  }

  // A DRM card whose `device` is a plain folder (a copied tree): ids, no address at all.
  void drm_card_copied(int card, unsigned device_id) {
    const std::string dir = fmt::format("sys/class/drm/card{}/device", card);
    write(dir + "/vendor", "0x1002\n");
    write(dir + "/device", fmt::format("0x{:04x}\n", device_id));
    write(dir + "/uevent", "DRIVER=amdgpu\n");
    write(dir + "/mem_info_vram_total", std::to_string(16ull << 30) + "\n");
    write(dir + "/board_info", "type : oam\n");
  }

  void kfd_node(int node, unsigned device_id, unsigned bus, int render_minor) {
    write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/properties", node),
          fmt::format("simd_count 64\ngfx_target_version 120000\nvendor_id 4098\ndevice_id {}\nlocation_id {}\ndomain 0\n"
                      "drm_render_minor {}\n",
                      device_id, bus << 8, render_minor));
  }

  bool link(const std::string& path, const std::string& target) {
    fs::create_directories((root() / path).parent_path());
    std::error_code ec;
    fs::create_directory_symlink(target, root() / path, ec);
    if (ec) links_ok_ = false;
    return !ec;
  }
  bool links_ok() const { return links_ok_; }

 private:
  test::TempDir dir_;
  bool links_ok_ = true;
};

Profile detect_tree(const SysfsTree& tree) {
  Options options;
  options.root = tree.root();
  return testing::detect_with(options);
}

std::string seen(const Gpu& g) {
  std::string out;
  for (const auto& s : g.seen_by) out += (out.empty() ? "" : ",") + s;
  return out;
}

TEST(OneEntry, DrmCardWithoutSlotNameIsMatchedThroughItsDeviceLink) {
  SysfsTree tree;
  // Two identical cards: their device id cannot tell them apart, only the link can.
  for (const auto& [card, address] : {std::pair{0, "0000:03:00.0"}, std::pair{1, "0000:0a:00.0"}}) {
    tree.pci_function(address, 0x7590);
    tree.drm_card_linked(card, address);
  }
  tree.kfd_node(1, 0x7590, 0x03, 128);
  tree.kfd_node(2, 0x7590, 0x0a, 129);
  if (!tree.links_ok()) GTEST_SKIP() << "symbolic links cannot be made here";
  Profile p = detect_tree(tree);
  ASSERT_EQ(p.gpus.size(), 2u) << ::testing::PrintToString(p.probe_notes);
  for (const auto& g : p.gpus) {
    EXPECT_EQ(seen(g), "pci,drm,kfd") << g.pci_address;
    EXPECT_TRUE(g.vram_bytes.has_value()) << g.pci_address;
  }
  EXPECT_EQ(p.gpus[0].pci_address, "0000:03:00.0");
  EXPECT_EQ(p.gpus[0].render_node, "/dev/dri/renderD128");
  EXPECT_EQ(p.gpus[1].pci_address, "0000:0a:00.0");
  EXPECT_EQ(p.gpus[1].render_node, "/dev/dri/renderD129");
}

TEST(OneEntry, ContainerWithoutPciSysfsListsTheCardOnce) {
  SysfsTree tree;
  tree.pci_function("0000:03:00.0", 0x7590, /*bus_entry=*/false);  // /sys/bus/pci not mounted
  tree.drm_card_linked(0, "0000:03:00.0");
  tree.kfd_node(1, 0x7590, 0x03, 128);
  if (!tree.links_ok()) GTEST_SKIP() << "symbolic links cannot be made here";
  Profile p = detect_tree(tree);
  ASSERT_EQ(p.gpus.size(), 1u);
  EXPECT_EQ(seen(p.gpus[0]), "drm,kfd");
  EXPECT_EQ(p.gpus[0].pci_address, "0000:03:00.0");
  EXPECT_EQ(p.gpus[0].device_id, 0x7590u);
  EXPECT_EQ(p.gpus[0].gfx, "gfx1200");
}

TEST(OneEntry, DrmCardWithoutAnyAddressIsMatchedByItsIdsWhenUnambiguous) {
  SysfsTree tree;
  tree.drm_card_copied(0, 0x7590);      // a copied tree: no link, no slot name
  tree.kfd_node(1, 0x7590, 0x03, 128);  // KFD knows the address
  Profile p = detect_tree(tree);
  ASSERT_EQ(p.gpus.size(), 1u);
  EXPECT_EQ(seen(p.gpus[0]), "drm,kfd");
  EXPECT_EQ(p.gpus[0].pci_address, "0000:03:00.0");
  EXPECT_TRUE(p.gpus[0].vram_bytes.has_value());
}

TEST(OneEntry, KfdWithoutALocationJoinsTheCardPciSaw) {
  SysfsTree tree;
  tree.pci_function("0000:03:00.0", 0x7590);
  tree.write("sys/class/kfd/kfd/topology/nodes/1/properties",
             "simd_count 64\ngfx_target_version 120000\nvendor_id 4098\ndevice_id 30096\nlocation_id 0\ndomain 0\n");
  if (!tree.links_ok()) GTEST_SKIP() << "symbolic links cannot be made here";
  Profile p = detect_tree(tree);
  ASSERT_EQ(p.gpus.size(), 1u);
  EXPECT_EQ(seen(p.gpus[0]), "pci,kfd");
  EXPECT_EQ(p.gpus[0].pci_address, "0000:03:00.0");
}

TEST(OneEntry, FirmwareFramebufferIsNotAGpu) {
  SysfsTree tree;
  // simpledrm: card0 on a platform device, no PCI ids.
  tree.write("sys/devices/platform/simple-framebuffer.0/uevent", "DRIVER=simple-framebuffer\n");
  fs::create_directories(tree.root() / "sys/class/drm/card0");
  tree.link("sys/class/drm/card0/device", "../../../devices/platform/simple-framebuffer.0");
  if (!tree.links_ok()) GTEST_SKIP() << "symbolic links cannot be made here";
  Profile p = detect_tree(tree);
  EXPECT_TRUE(p.gpus.empty()) << p.gpus.size() << " entries; the first seen by " << seen(p.gpus.front());
}

TEST(OneEntry, AddressesHaveOneSpelling) {
  EXPECT_EQ(parse_pci_address("0000:03:00.0").value(), "0000:03:00.0");
  EXPECT_EQ(parse_pci_address("0000:0A:00.1").value(), "0000:0a:00.1");
  EXPECT_EQ(parse_pci_address("03:00.0").value(), "0000:03:00.0");
  EXPECT_EQ(parse_pci_address("10000:c1:00.0").value(), "10000:c1:00.0");
  for (const char* bad : {"", "simple-framebuffer.0", "0000:03:00", "0000:3:00.0", "0000:03:00.10", "card0", "pci0000:00"}) {
    EXPECT_FALSE(parse_pci_address(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace zcuda::detect
