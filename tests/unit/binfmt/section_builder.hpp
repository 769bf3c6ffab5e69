#pragma once
// Small real ELF64 and PE32+ files with the sections a test names, built byte by byte (the layout
// of the System V gABI and Microsoft's "PE Format"), for the fatbin detection tests.
#include <cstdint>
#include <string>
#include <vector>

namespace zcuda::test {

inline void put_le(std::string& out, std::size_t at, std::uint64_t value, std::size_t bytes) {
  if (out.size() < at + bytes) out.resize(at + bytes, '\0');
  // Bytes past the eighth are zero: a 64-bit value shifted by 64 or more is undefined.
  for (std::size_t i = 0; i < bytes; ++i) out[at + i] = i < 8 ? static_cast<char>((value >> (8 * i)) & 0xff) : '\0';
}

// One image of a test fat binary: kind 1 PTX, 2 ELF (cubin); `arch` 86 for sm_86 / compute_86.
struct TestImage {
  unsigned kind = 1;
  unsigned arch = 86;
  bool compressed = false;  // lz4, as nvcc -Xfatbin -compress-all writes it
  std::string payload = ".version 8.0\n.target sm_86\n";
};

// A fat binary laid out as upstream ZLUDA reads one (cuda_types/src/dark_api.rs): the 16-byte
// FatbinHeader (magic 0xBA55ED50, version 1, header size, size of what follows), then per image
// an 80-byte FatbinFileHeader (as NVIDIA's fatbinary writes it; version 0x101) and its payload
// padded to 8 bytes. Without images: a fatbin header alone, still a fat binary.
inline std::string fatbin_with(const std::vector<TestImage>& images) {
  std::string out(16, '\0');
  for (const auto& image : images) {
    const std::size_t at = out.size();
    const std::size_t padded = (image.payload.size() + 1 + 7) / 8 * 8;
    out.resize(at + 80, '\0');
    put_le(out, at + 0, image.kind, 2);
    put_le(out, at + 2, 0x101, 2);
    put_le(out, at + 4, 80, 4);
    put_le(out, at + 8, image.compressed ? 0 : padded, 4);            // payload_size
    put_le(out, at + 16, image.compressed ? padded : 0, 4);           // compressed_size
    put_le(out, at + 28, image.arch, 4);                              // sm_version
    put_le(out, at + 40, 0x11 | (image.compressed ? 0x2000 : 0), 8);  // 64-bit, Linux, lz4
    put_le(out, at + 56, image.payload.size() + 1, 8);                // uncompressed payload
    std::string payload = image.payload;
    payload.resize(padded, '\0');
    out += payload;
  }
  put_le(out, 0, 0xBA55ED50u, 4);
  put_le(out, 4, 1, 2);
  put_le(out, 6, 16, 2);
  put_le(out, 8, out.size() - 16, 8);
  return out;
}

inline std::string fatbin_bytes() { return fatbin_with({}); }

// An ELF64 relocatable file whose sections are `names` (each holding `content`), then .shstrtab.
inline std::string elf_with_sections(const std::vector<std::string>& names, const std::string& content = fatbin_bytes()) {
  std::string names_table(1, '\0');
  std::vector<std::uint32_t> name_offsets;
  for (const auto& n : names) {
    name_offsets.push_back(static_cast<std::uint32_t>(names_table.size()));
    names_table += n + '\0';
  }
  const auto shstrtab_name = static_cast<std::uint32_t>(names_table.size());
  names_table += std::string(".shstrtab") + '\0';

  std::string out(64, '\0');
  out[0] = 0x7f;
  out[1] = 'E';
  out[2] = 'L';
  out[3] = 'F';
  out[4] = 2;                // 64-bit
  out[5] = 1;                // little-endian
  out[6] = 1;                // version
  put_le(out, 16, 1, 2);     // ET_REL
  put_le(out, 18, 0x3e, 2);  // x86-64
  put_le(out, 20, 1, 4);
  put_le(out, 52, 64, 2);                                       // e_ehsize
  put_le(out, 58, 64, 2);                                       // e_shentsize
  std::vector<std::pair<std::uint64_t, std::uint64_t>> placed;  // offset, size per section
  for (std::size_t i = 0; i < names.size(); ++i) {
    placed.push_back({out.size(), content.size()});
    out += content;
  }
  const std::uint64_t names_at = out.size();
  out += names_table;
  while (out.size() % 8) out += '\0';
  const std::uint64_t shoff = out.size();
  const std::uint16_t shnum = static_cast<std::uint16_t>(names.size() + 2);
  put_le(out, 40, shoff, 8);
  put_le(out, 60, shnum, 2);
  put_le(out, 62, shnum - 1, 2);         // .shstrtab is last
  out.resize(shoff + 64 * shnum, '\0');  // section 0 is the null section
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::size_t h = shoff + 64 * (i + 1);
    put_le(out, h + 0, name_offsets[i], 4);
    put_le(out, h + 4, 1, 4);  // SHT_PROGBITS
    put_le(out, h + 24, placed[i].first, 8);
    put_le(out, h + 32, placed[i].second, 8);
    put_le(out, h + 48, 8, 8);
  }
  const std::size_t h = shoff + 64 * (names.size() + 1);
  put_le(out, h + 0, shstrtab_name, 4);
  put_le(out, h + 4, 3, 4);  // SHT_STRTAB
  put_le(out, h + 24, names_at, 8);
  put_le(out, h + 32, names_table.size(), 8);
  put_le(out, h + 48, 1, 8);
  return out;
}

// A PE32+ image whose section table lists `names` (at most 8 bytes each), each with `content`.
inline std::string pe_with_sections(const std::vector<std::string>& names, const std::string& content = fatbin_bytes()) {
  std::string out(0x40, '\0');
  out[0] = 'M';
  out[1] = 'Z';
  put_le(out, 0x3c, 0x40, 4);
  out += std::string("PE\0\0", 4);
  const std::size_t coff = 0x44;
  const std::uint16_t optional_size = 0xf0;
  put_le(out, coff + 0, 0x8664, 2);
  put_le(out, coff + 2, names.size(), 2);
  put_le(out, coff + 16, optional_size, 2);
  put_le(out, coff + 18, 0x2022, 2);  // executable, large-address-aware, DLL
  const std::size_t opt = coff + 20;
  put_le(out, opt, 0x20b, 2);
  const std::size_t table = opt + optional_size;
  const std::size_t data_at = (table + 40 * names.size() + 0x1ff) & ~std::size_t{0x1ff};
  put_le(out, opt + 60, data_at, 4);  // SizeOfHeaders
  out.resize(data_at, '\0');
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::size_t h = table + 40 * i;
    for (std::size_t c = 0; c < names[i].size() && c < 8; ++c) out[h + c] = names[i][c];
    put_le(out, h + 8, content.size(), 4);
    put_le(out, h + 12, 0x1000 * (i + 1), 4);
    put_le(out, h + 16, 0x200, 4);
    put_le(out, h + 20, out.size(), 4);
    std::string block = content;
    block.resize(0x200, '\0');
    out += block;
  }
  return out;
}

}  // namespace zcuda::test
