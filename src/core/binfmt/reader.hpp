#pragma once
// Bounded little/big-endian reads over a ByteSource, shared by the PE and ELF parsers.
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>

#include <zcuda/binfmt/binfmt.hpp>

namespace zcuda::binfmt::detail {

// Longest library name or search path accepted; real ones are far shorter.
inline constexpr std::size_t kMaxString = 4096;

class Reader {
 public:
  Reader(const ByteSource& source, bool little_endian) : source_(source), little_(little_endian) {}

  std::uint64_t size() const { return source_.size(); }

  template <class T>
  std::optional<T> get(std::uint64_t offset) const {
    std::array<std::byte, sizeof(T)> raw{};
    if (!source_.read(offset, raw)) return std::nullopt;
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      const std::size_t at = little_ ? i : sizeof(T) - 1 - i;
      value = static_cast<T>(value | static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(raw[at])) << (8 * i)));
    }
    return value;
  }

  // A NUL-terminated string starting at `offset` and ending before `limit` (exclusive);
  // nullopt when no NUL comes before the limit, the end of the file or kMaxString.
  std::optional<std::string> c_string(std::uint64_t offset, std::uint64_t limit) const {
    if (limit > size()) limit = size();
    std::string out;
    std::array<std::byte, 256> chunk{};
    while (offset < limit && out.size() <= kMaxString) {
      const std::uint64_t n = std::min<std::uint64_t>(chunk.size(), limit - offset);
      std::span<std::byte> part(chunk.data(), static_cast<std::size_t>(n));
      if (!source_.read(offset, part)) return std::nullopt;
      for (std::byte b : part) {
        if (b == std::byte{0}) return out;
        out.push_back(static_cast<char>(std::to_integer<unsigned char>(b)));
      }
      offset += n;
    }
    return std::nullopt;
  }

 private:
  const ByteSource& source_;
  bool little_;
};

// a + b without wrapping; nullopt on overflow.
inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  if (b > UINT64_MAX - a) return std::nullopt;
  return a + b;
}

}  // namespace zcuda::binfmt::detail
