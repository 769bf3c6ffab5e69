#pragma once
// zcuda's own tables, embedded from manifests/: AMD PCI ids and the per-arch support status.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>

namespace zcuda::detect {

struct KnownDevice {
  std::string name;  // marketing name (exact revision) or family name; may be empty
  std::string chip;  // "Navi 44"
  std::string gfx;
  bool exact = false;  // the revision matched
};
std::optional<KnownDevice> lookup_amd_device(std::uint32_t device_id, std::optional<std::uint32_t> revision);

struct ArchSupport {
  std::string gfx;
  GpuSupport status = GpuSupport::unsupported;
  std::string min_hip_sdk;
  std::string max_hip_sdk;  // empty: no known upper bound
  std::string source;
  std::string note;
};
// Polaris, Vega and the CDNA server GPUs (gfx8xx, gfx9xx), which upstream ZLUDA does not support.
bool pre_rdna(std::string_view gfx);

// The entry for an arch; an arch not in the table is unsupported (note says why when known).
ArchSupport arch_support(const std::string& gfx);

// Parse failures of the embedded tables are bugs in zcuda; tests call this to catch them.
Status validate_embedded_tables();

}  // namespace zcuda::detect
