// Whether a binary carries CUDA device code, read from its section table (ELF section headers,
// PE section table), with the same bounds checks as the import readers; and which images its
// fat binaries hold, walked as upstream ZLUDA walks them (dark_api/src/fatbin.rs).
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

// Where a section's bytes are: offset and size in the file.
struct Span {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

Result<std::optional<Span>> elf_fatbin_section(const ByteSource& source) {
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
  if (*shoff == 0 || *shnum == 0) return std::nullopt;  // no section headers (stripped of them): no sign
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
    if (name && *name == ".nv_fatbin") {
      auto where = offset_and_size(*at);
      if (!where) return bad("ELF", "the section header table is truncated");
      return Span{where->first, where->second};
    }
  }
  return std::nullopt;
}

Result<std::optional<Span>> pe_fatbin_section(const ByteSource& source) {
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
    if (name == ".nv_fatb") {
      // SizeOfRawData is rounded up to the file alignment; the walk skips that zero padding.
      auto raw_size = reader.get<std::uint32_t>(table + std::uint64_t{i} * 40 + 16);
      auto raw_at = reader.get<std::uint32_t>(table + std::uint64_t{i} * 40 + 20);
      if (!raw_size || !raw_at) return bad("PE", "the section table is truncated");
      return Span{*raw_at, *raw_size};
    }
  }
  return std::nullopt;
}

bool starts_with_fatbin_magic(const ByteSource& source) {
  std::array<std::byte, 4> magic{};
  if (!source.read(0, magic)) return false;
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value |= std::uint32_t{std::to_integer<std::uint8_t>(magic[i])} << (8 * i);
  return value == kFatbinMagic;
}

// The bytes that hold fat binaries: the whole file when it is one, else the ELF or PE section.
Result<std::optional<Span>> fatbin_bytes(const ByteSource& source) {
  if (starts_with_fatbin_magic(source)) return Span{0, source.size()};
  switch (sniff(source).value_or(Format::pe)) {
    case Format::elf:
      return elf_fatbin_section(source);
    case Format::pe:
      if (sniff(source)) return pe_fatbin_section(source);
      break;
  }
  return std::nullopt;
}

// Caps: a real library holds a few hundred fat binaries of a few images each.
constexpr std::size_t kMaxImages = 1u << 16;
constexpr std::uint64_t kEntryHeaderSize = 64;  // sizeof(FatbinFileHeader)
constexpr std::uint16_t kEntryVersion = 0x101;  // FatbinFileHeader::HEADER_VERSION_CURRENT
constexpr std::uint64_t kFlag64Bit = 0x1, kFlagLz4 = 0x2000, kFlagZstd = 0x8000;

std::unexpected<Error> bad_fatbin(std::uint64_t at, std::string what) {
  return fail(ErrorKind::invalid_input, fmt::format("Malformed fat binary at offset {:#x}: {}", at, what));
}

// The entries of one fat binary: FatbinFileHeaders back to back, each followed by its payload
// (header_size + max(payload_size, compressed_size) bytes in all, as upstream steps).
Status read_entries(const Reader& reader, std::uint64_t at, std::uint64_t end, std::vector<FatbinImage>& out) {
  while (end - at >= kEntryHeaderSize) {
    auto kind = reader.get<std::uint16_t>(at);
    auto version = reader.get<std::uint16_t>(at + 2);
    auto header_size = reader.get<std::uint32_t>(at + 4);
    auto payload = reader.get<std::uint32_t>(at + 8);
    auto compressed = reader.get<std::uint32_t>(at + 16);
    auto arch = reader.get<std::uint32_t>(at + 28);
    auto flags = reader.get<std::uint64_t>(at + 40);
    if (!kind || !version || !header_size || !payload || !compressed || !arch || !flags) return bad_fatbin(at, "an image header is truncated");
    if (*version != kEntryVersion) return bad_fatbin(at, fmt::format("image header version {:#x} (expected {:#x})", *version, kEntryVersion));
    if (*header_size < kEntryHeaderSize) return bad_fatbin(at, fmt::format("an image header of {} bytes", *header_size));
    const std::uint64_t step = std::uint64_t{*header_size} + std::max(*payload, *compressed);
    if (step > end - at) return bad_fatbin(at, "an image runs past the end of its fat binary");
    if (out.size() >= kMaxImages) return bad_fatbin(at, fmt::format("more than {} images", kMaxImages));
    FatbinImage image;
    image.kind = *kind == 1 ? ImageKind::ptx : *kind == 2 ? ImageKind::cubin : ImageKind::other;
    image.arch = *arch;
    image.compression = (*flags & kFlagLz4) ? Compression::lz4 : (*flags & kFlagZstd) ? Compression::zstd : Compression::none;
    image.size = std::max(*payload, *compressed);
    image.is_64bit = (*flags & kFlag64Bit) != 0;
    out.push_back(image);
    at += step;
  }
  return {};
}

// A section holds one fat binary per translation unit, each 8-byte aligned, zeros between.
Result<std::vector<FatbinImage>> walk(const ByteSource& source, Span span) {
  Reader reader(source, true);
  auto end = checked_add(span.offset, span.size);
  if (!end || *end > reader.size()) return bad_fatbin(span.offset, "its section runs past the end of the file");
  std::vector<FatbinImage> images;
  std::uint64_t at = span.offset;
  std::size_t headers = 0;
  while (*end - at >= 16) {
    auto magic = reader.get<std::uint32_t>(at);
    if (!magic) return bad_fatbin(at, "truncated");
    if (*magic == 0 && reader.get<std::uint64_t>(at) == 0) {  // padding
      at += 8;
      continue;
    }
    if (++headers > kMaxImages) return bad_fatbin(at, fmt::format("more than {} fat binaries", kMaxImages));
    if (*magic != kFatbinMagic)
      return bad_fatbin(at, fmt::format("magic {:#010x} where a fat binary header ({:#010x}) belongs", *magic, kFatbinMagic));
    auto version = reader.get<std::uint16_t>(at + 4);
    auto header_size = reader.get<std::uint16_t>(at + 6);
    auto files_size = reader.get<std::uint64_t>(at + 8);
    if (!version || !header_size || !files_size) return bad_fatbin(at, "its header is truncated");
    if (*version != 1) return bad_fatbin(at, fmt::format("header version {} (expected 1)", *version));
    if (*header_size < 16 || *header_size > *end - at) return bad_fatbin(at, fmt::format("a header of {} bytes", *header_size));
    const std::uint64_t files_at = at + *header_size;
    if (*files_size > *end - files_at) return bad_fatbin(at, "its images run past the end of the section");
    const std::size_t first = images.size();
    if (auto read = read_entries(reader, files_at, files_at + *files_size, images); !read) return std::unexpected(read.error());
    for (std::size_t i = first; i < images.size(); ++i) images[i].fatbin = headers - 1;
    at = files_at + *files_size;
    at += (8 - (at - span.offset) % 8) % 8;
    if (at > *end) break;
  }
  return images;
}

}  // namespace

std::string_view to_string(ImageKind kind) {
  switch (kind) {
    case ImageKind::ptx:
      return "ptx";
    case ImageKind::cubin:
      return "cubin";
    case ImageKind::other:
      return "other";
  }
  return "other";
}

std::string_view to_string(Compression compression) {
  switch (compression) {
    case Compression::none:
      return "none";
    case Compression::lz4:
      return "lz4";
    case Compression::zstd:
      return "zstd";
  }
  return "none";
}

std::string FatbinImage::target() const { return fmt::format("{}_{}", kind == ImageKind::ptx ? "compute" : "sm", arch); }

Result<bool> has_fatbin(const ByteSource& source) {
  auto span = fatbin_bytes(source);
  if (!span) return std::unexpected(span.error());
  return span->has_value();
}

Result<std::vector<FatbinImage>> fatbin_images(const ByteSource& source) {
  auto span = fatbin_bytes(source);
  if (!span) return std::unexpected(span.error());
  if (!*span) return std::vector<FatbinImage>{};
  return walk(source, **span);
}

}  // namespace zcuda::binfmt
