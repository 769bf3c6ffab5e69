// Recognising a torch built for ROCm from its files (docs/apps.md, "Native ROCm torch").
#include <zcuda/apps/native_rocm.hpp>

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include <zcuda/base/ascii.hpp>
#include <zcuda/base/path_text.hpp>

namespace zcuda::apps {

namespace fs = std::filesystem;

namespace {

// The distributions TheRock's multi-arch index installs with torch[device-gfxNNNN] ("pip
// freeze" in ROCm/TheRock RELEASES.md @89553ce: rocm-sdk-core, rocm-sdk-libraries,
// rocm-sdk-device-gfx1100, amd-torch-device-gfx1100; docs/packaging/python_packaging.md names
// rocm-sdk-devel too). pip writes a distribution's .dist-info folder with '-' as '_'.
constexpr std::array<std::string_view, 5> kTheRockDists = {"rocm_sdk_core-", "rocm_sdk_libraries-", "rocm_sdk_device_", "rocm_sdk_devel-",
                                                           "amd_torch_device_"};

std::vector<std::string> therock_dists(const fs::path& site_packages) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(site_packages, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = ascii_lower(path_to_utf8(it->path().filename()));
    if (!name.ends_with(".dist-info")) continue;
    if (std::ranges::any_of(kTheRockDists, [&](std::string_view prefix) { return name.starts_with(prefix); })) found.push_back(name);
  }
  std::ranges::sort(found);
  return found;
}

}  // namespace

std::optional<NativeRocm> native_rocm(const TorchInstall& torch) {
  NativeRocm out;
  if (torch.hip) out.why.push_back(fmt::format("torch/version.py: hip = '{}'", *torch.hip));
  if (torch.version && ascii_lower(*torch.version).find("+rocm") != std::string::npos) out.why.push_back("version " + *torch.version);
  const auto dists = therock_dists(torch.package.parent_path());
  if (!dists.empty()) {
    out.therock = true;
    out.why.push_back(fmt::format("TheRock's packages beside it ({})", fmt::join(dists, ", ")));
  }
  if (out.why.empty()) return std::nullopt;
  return out;
}

std::string native_rocm_text(const TorchInstall& torch, const NativeRocm& rocm) {
  return fmt::format("native ROCm: no ZLUDA needed (torch {} is built for ROCm{}: {})", torch.version.value_or("(version unknown)"),
                     rocm.therock ? ", from TheRock" : "", fmt::join(rocm.why, "; "));
}

}  // namespace zcuda::apps
