#pragma once
// A fat binary holding several PTX images, laid out byte for byte as NVIDIA's `fatbinary` tool
// writes one with `--compress=false` (CUDA 13; a unit test compares the two when the tool is
// installed): a 16-byte container header, then per image an 80-byte entry header and the PTX
// text with its terminating NUL, zero-padded to a multiple of 8. The driver chooses among the
// images by the architecture each entry header names. Header-only, shared with the unit tests.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zcuda::probe {

struct PtxImage {
  int sm = 0;                        // the virtual architecture: 75 for .target sm_75
  int ptx_major = 0, ptx_minor = 0;  // the .version of the text
  std::string text;
};

inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;
inline constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1u;

namespace detail {
inline void put(std::vector<unsigned char>& out, std::size_t at, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<unsigned char>(value >> (8 * i));
}
}  // namespace detail

// `windows_host` sets the host flag the tool records (0x40 Windows, 0x10 Linux, with 0x1 for 64-bit).
inline std::vector<unsigned char> build_ptx_fatbin(std::span<const PtxImage> images, bool windows_host) {
  constexpr std::size_t kContainerHeader = 16, kEntryHeader = 80;
  std::vector<unsigned char> out(kContainerHeader, 0);
  for (const auto& image : images) {
    const std::size_t payload = (image.text.size() + 1 + 7) / 8 * 8;
    const std::size_t at = out.size();
    out.resize(at + kEntryHeader + payload, 0);
    detail::put(out, at + 0x00, 1, 2);             // kind: PTX
    detail::put(out, at + 0x02, 0x0101, 2);        // entry header version
    detail::put(out, at + 0x04, kEntryHeader, 4);  // entry header size
    detail::put(out, at + 0x08, payload, 8);       // padded payload size
    detail::put(out, at + 0x14, 0x40, 4);          // where the options record starts (in this header)
    detail::put(out, at + 0x18, static_cast<std::uint64_t>(image.ptx_major) << 16 | static_cast<std::uint64_t>(image.ptx_minor), 4);
    detail::put(out, at + 0x1C, static_cast<std::uint64_t>(image.sm), 4);
    detail::put(out, at + 0x28, windows_host ? 0x41 : 0x11, 8);  // 64-bit, host OS; uncompressed
    detail::put(out, at + 0x40, 0x48, 8);                        // the (empty) options text sits at 0x48
    for (std::size_t i = 0; i < image.text.size(); ++i) out[at + kEntryHeader + i] = static_cast<unsigned char>(image.text[i]);
  }
  detail::put(out, 0, kFatbinMagic, 4);
  detail::put(out, 4, 1, 2);                 // container version
  detail::put(out, 6, kContainerHeader, 2);  // container header size
  detail::put(out, 8, out.size() - kContainerHeader, 8);
  return out;
}

// The image CUDA's rule picks for a device of compute capability `cc` (major·10 + minor) when a
// binary carries only PTX: the highest virtual architecture not above the device's. 0 when none fits.
inline int ptx_target_for(int cc, std::span<const int> targets) {
  int best = 0;
  for (int t : targets) {
    if (t <= cc && t > best) best = t;
  }
  return best;
}

}  // namespace zcuda::probe
