// Whether a binary carries CUDA device code, read from its section table (ELF section headers,
// PE section table), with the same bounds checks as the import readers.
#include <fmt/format.h>

#include "reader.hpp"

namespace zcuda::binfmt {

namespace {

using detail::checked_add;
using detail::Reader;

constexpr std::uint32_t kMaxElfSections = 65535;
constexpr std::uint32_t kMaxPeSections = 96;

std::unexpected<Error> bad(std::string_view format, std::string what) {
  return fail(ErrorKind::invalid_input, fmt::format("Malformed {} file: {}", format, what));
}

Result<bool> elf_has_fatbin(const ByteSource& source) {
  std::array<std::byte, 16> ident{};
  if (!source.read(0, ident)) return bad("ELF", "the identification bytes are truncated");
  const unsigned elf_class = std::to_integer<unsigned>(ident[4]);
  const unsigned data = std::to_integer<unsigned>(ident[5]);
  if ((elf_class != 1 && elf_class != 2) || (data != 1 && data != 2)) return bad("ELF", "unknown class or byte order");
  const bool is64 = elf_class == 2;
  Reader reader(source, data == 1);
  const std::optional<std::uint64_t> shoff = is64 ? reader.get<std::uint64_t>(40) : [&]() -> std::optional<std::uint64_t> {
    auto v = reader.get<std::uint32_t>(32);
    return v ? std::optional<std::uint64_t>(*v) : std::nullopt;
  }();
  auto shentsize = reader.get<std::uint16_t>(is64 ? 58 : 46);
  auto shnum = reader.get<std::uint16_t>(is64 ? 60 : 48);
  auto shstrndx = reader.get<std::uint16_t>(is64 ? 62 : 50);
  if (!shoff || !shentsize || !shnum || !shstrndx) return bad("ELF", "the file header is truncated");
  if (*shoff == 0 || *shnum == 0) return false;  // no section headers (stripped of them): no sign
  const std::uint64_t min_entry = is64 ? 64 : 40;
  if (*shentsize < min_entry) return bad("ELF", fmt::format("section header entries of {} bytes", *shentsize));
  if (*shstrndx >= *shnum || *shnum > kMaxElfSections) return bad("ELF", "the section name table index is out of range");

  auto header = [&](std::uint32_t index) -> std::optional<std::uint64_t> { return checked_add(*shoff, std::uint64_t{index} * *shentsize); };
  auto offset_and_size = [&](std::uint64_t at) -> std::optional<std::pair<std::uint64_t, std::uint64_t>> {
    if (is64) {
      auto off = reader.get<std::uint64_t>(at + 24);
      auto size = reader.get<std::uint64_t>(at + 32);
      if (!off || !size) return std::nullopt;
      return std::pair{*off, *size};
    }
    auto off = reader.get<std::uint32_t>(at + 16);
    auto size = reader.get<std::uint32_t>(at + 20);
    if (!off || !size) return std::nullopt;
    return std::pair<std::uint64_t, std::uint64_t>{*off, *size};
  };
  auto names_at = header(*shstrndx);
  if (!names_at) return bad("ELF", "the section header offset overflows");
  auto names = offset_and_size(*names_at);
  if (!names) return bad("ELF", "the section header table is truncated");
  auto names_end = checked_add(names->first, names->second);
  if (!names_end) return bad("ELF", "the section name table overflows");
  const std::uint64_t limit = std::min(*names_end, reader.size());
  for (std::uint32_t i = 0; i < *shnum; ++i) {
    auto at = header(i);
    if (!at) return bad("ELF", "the section header offset overflows");
    auto name_index = reader.get<std::uint32_t>(*at);
    if (!name_index) return bad("ELF", "the section header table is truncated");
    auto name_at = checked_add(names->first, *name_index);
    if (!name_at || *name_at >= limit) continue;
    auto name = reader.c_string(*name_at, limit);
    if (name && *name == ".nv_fatbin") return true;
  }
  return false;
}

Result<bool> pe_has_fatbin(const ByteSource& source) {
  Reader reader(source, true);
  auto lfanew = reader.get<std::uint32_t>(0x3c);
  if (!lfanew) return bad("PE", "the DOS header is truncated");
  auto signature = reader.get<std::uint32_t>(*lfanew);
  if (!signature || *signature != 0x00004550) return bad("PE", "no PE signature (an MS-DOS program, or truncated)");
  const std::uint64_t coff = std::uint64_t{*lfanew} + 4;
  auto count = reader.get<std::uint16_t>(coff + 2);
  auto optional_size = reader.get<std::uint16_t>(coff + 16);
  if (!count || !optional_size) return bad("PE", "the COFF header is truncated");
  if (*count > kMaxPeSections) return bad("PE", fmt::format("{} sections (at most {} are loadable)", *count, kMaxPeSections));
  const std::uint64_t table = coff + 20 + *optional_size;
  for (std::uint32_t i = 0; i < *count; ++i) {
    std::array<std::byte, 8> raw{};
    if (!source.read(table + std::uint64_t{i} * 40, raw)) return bad("PE", "the section table is truncated");
    std::string name;
    for (std::byte b : raw) {
      if (b == std::byte{0}) break;
      name.push_back(static_cast<char>(std::to_integer<unsigned char>(b)));
    }
    if (name == ".nv_fatb") return true;
  }
  return false;
}

}  // namespace

Result<bool> has_fatbin(const ByteSource& source) {
  std::array<std::byte, 4> magic{};
  if (source.read(0, magic)) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value |= std::uint32_t{std::to_integer<std::uint8_t>(magic[i])} << (8 * i);
    if (value == kFatbinMagic) return true;
  }
  switch (sniff(source).value_or(Format::pe)) {
    case Format::elf:
      return elf_has_fatbin(source);
    case Format::pe:
      if (sniff(source)) return pe_has_fatbin(source);
      break;
  }
  return false;
}

}  // namespace zcuda::binfmt
