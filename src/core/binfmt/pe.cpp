// PE/COFF (PE32 and PE32+): the DLL names of the import and delay-import tables, the export
// table's names, and the manifest and version resources.
// Layout: Microsoft "PE Format" (learn.microsoft.com/windows/win32/debug/pe-format).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "reader.hpp"

namespace zcuda::binfmt {

namespace {

using detail::checked_add;
using detail::Reader;

// Counts beyond which a file is treated as hostile rather than unusual. The Windows loader
// itself refuses more than 96 sections; import tables of real programs list tens of DLLs.
constexpr std::uint32_t kMaxSections = 96;
constexpr std::size_t kMaxDescriptors = 4096;
constexpr std::uint32_t kImportDirectory = 1;
constexpr std::uint32_t kDelayImportDirectory = 13;
constexpr std::uint32_t kResourceDirectory = 2;
constexpr std::uint32_t kExportDirectory = 0;
constexpr std::uint32_t kManifestType = 24;        // RT_MANIFEST
constexpr std::uint32_t kVersionType = 16;         // RT_VERSION
constexpr std::uint32_t kMaxResource = 64u << 10;  // real manifests and version resources are a few KiB
// nvcuda.dll exports about a thousand names; a table far beyond that is hostile.
constexpr std::uint32_t kMaxExports = 65536;

std::unexpected<Error> bad_pe(std::string what) { return fail(ErrorKind::invalid_input, "Malformed PE file: " + std::move(what)); }

struct Section {
  std::uint32_t virtual_address = 0;
  std::uint32_t virtual_size = 0;
  std::uint32_t raw_size = 0;
  std::uint32_t raw_offset = 0;
};

// Where an RVA lies in the file, and where the bytes backing it end.
struct Location {
  std::uint64_t offset = 0;
  std::uint64_t limit = 0;
};

class PeImage {
 public:
  PeImage(const Reader& reader, std::vector<Section> sections, std::uint32_t header_size)
      : reader_(reader), sections_(std::move(sections)), header_size_(header_size) {}

  std::optional<Location> locate(std::uint64_t rva) const {
    if (rva < header_size_ && rva < reader_.size()) return Location{rva, std::min<std::uint64_t>(header_size_, reader_.size())};
    for (const auto& s : sections_) {
      const std::uint64_t extent = s.virtual_size != 0 ? s.virtual_size : s.raw_size;
      if (rva < s.virtual_address || rva - s.virtual_address >= extent) continue;
      const std::uint64_t delta = rva - s.virtual_address;
      if (delta >= s.raw_size) return std::nullopt;  // in memory only (zero-filled), not in the file
      const std::uint64_t offset = std::uint64_t{s.raw_offset} + delta;
      const std::uint64_t limit = std::min<std::uint64_t>(std::uint64_t{s.raw_offset} + s.raw_size, reader_.size());
      if (offset >= limit) return std::nullopt;
      return Location{offset, limit};
    }
    return std::nullopt;
  }

  Result<std::string> name_at(std::uint64_t rva, std::string_view table) const {
    auto where = locate(rva);
    if (!where) return bad_pe(fmt::format("a {} DLL name lies outside the file (RVA {:#x})", table, rva));
    auto name = reader_.c_string(where->offset, where->limit);
    if (!name) return bad_pe(fmt::format("a {} DLL name is not terminated (RVA {:#x})", table, rva));
    if (name->empty()) return bad_pe(fmt::format("a {} DLL name is empty", table));
    return *name;
  }

 private:
  const Reader& reader_;
  std::vector<Section> sections_;
  std::uint32_t header_size_;
};

Status read_imports(const PeImage& image, const Reader& reader, std::uint32_t rva, std::vector<std::string>& out) {
  constexpr std::uint64_t kSize = 20;  // IMAGE_IMPORT_DESCRIPTOR
  auto where = image.locate(rva);
  if (!where) return bad_pe("the import table lies outside the file");
  for (std::size_t i = 0;; ++i) {
    if (i >= kMaxDescriptors) return bad_pe("the import table has no end");
    const std::uint64_t at = where->offset + i * kSize;
    if (at + kSize > where->limit) return bad_pe("the import table runs past its section");
    auto name_rva = reader.get<std::uint32_t>(at + 12);
    auto first_thunk = reader.get<std::uint32_t>(at + 16);
    if (!name_rva || !first_thunk) return bad_pe("the import table is truncated");
    // The loader stops at the first descriptor without a name and thunks.
    if (*name_rva == 0 && *first_thunk == 0) return {};
    auto name = image.name_at(*name_rva, "imported");
    if (!name) return std::unexpected(name.error());
    out.push_back(std::move(*name));
  }
}

// The table ends at a descriptor without a name or after the directory's declared size,
// whichever comes first: GNU dlltool's delay-import libraries emit no terminating descriptor.
Status read_delay_imports(const PeImage& image, const Reader& reader, std::uint32_t rva, std::uint32_t size, std::uint64_t image_base,
                          std::vector<std::string>& out) {
  constexpr std::uint64_t kSize = 32;  // IMAGE_DELAYLOAD_DESCRIPTOR
  auto where = image.locate(rva);
  if (!where) return bad_pe("the delay-import table lies outside the file");
  const std::uint64_t declared = size / kSize;
  for (std::size_t i = 0; i < declared; ++i) {
    if (i >= kMaxDescriptors) return bad_pe("the delay-import table has no end");
    const std::uint64_t at = where->offset + i * kSize;
    if (at + kSize > where->limit) return bad_pe("the delay-import table runs past its section");
    auto attributes = reader.get<std::uint32_t>(at);
    auto name_field = reader.get<std::uint32_t>(at + 4);
    if (!attributes || !name_field) return bad_pe("the delay-import table is truncated");
    if (*name_field == 0) return {};
    // Attribute bit 0 set: fields are RVAs (every current linker). Clear: the old Visual C++ 6
    // form, where they are virtual addresses.
    std::uint64_t name_rva = *name_field;
    if ((*attributes & 1u) == 0 && name_rva >= image_base && image_base != 0) name_rva -= image_base;
    auto name = image.name_at(name_rva, "delay-imported");
    if (!name) return std::unexpected(name.error());
    out.push_back(std::move(*name));
  }
  return {};
}

// The first resource of a type: the type's entry, then its first name, then its first language.
// A resource tree that does not hold together is read as "no such resource": resources only add
// advice, and the imports stay readable.
std::optional<std::vector<std::uint8_t>> read_resource(const PeImage& image, const Reader& reader, std::uint32_t root_rva, std::uint32_t type_id) {
  // One directory level: the entry with `id` (or the first when none is asked), as an offset
  // from the root and whether it is a subdirectory.
  auto entry = [&](std::uint32_t dir_offset, std::optional<std::uint32_t> id) -> std::optional<std::pair<std::uint32_t, bool>> {
    auto where = image.locate(std::uint64_t{root_rva} + dir_offset);
    if (!where) return std::nullopt;
    auto named = reader.get<std::uint16_t>(where->offset + 12);
    auto ids = reader.get<std::uint16_t>(where->offset + 14);
    if (!named || !ids) return std::nullopt;
    const std::uint32_t count = std::min<std::uint32_t>(std::uint32_t{*named} + *ids, 4096);
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t at = where->offset + 16 + std::uint64_t{i} * 8;
      if (at + 8 > where->limit) return std::nullopt;
      auto name = reader.get<std::uint32_t>(at);
      auto data = reader.get<std::uint32_t>(at + 4);
      if (!name || !data) return std::nullopt;
      if (id && (i < *named || *name != *id)) continue;
      return std::pair<std::uint32_t, bool>{*data & 0x7fffffffu, (*data & 0x80000000u) != 0};
    }
    return std::nullopt;
  };
  auto type = entry(0, type_id);
  if (!type || !type->second) return std::nullopt;
  auto name = entry(type->first, std::nullopt);
  if (!name || !name->second) return std::nullopt;
  auto language = entry(name->first, std::nullopt);
  if (!language || language->second) return std::nullopt;
  auto data_entry = image.locate(std::uint64_t{root_rva} + language->first);
  if (!data_entry) return std::nullopt;
  auto data_rva = reader.get<std::uint32_t>(data_entry->offset);
  auto size = reader.get<std::uint32_t>(data_entry->offset + 4);
  if (!data_rva || !size || *size > kMaxResource) return std::nullopt;
  auto data = image.locate(*data_rva);
  if (!data || data->offset + *size > data->limit) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(*size);
  for (std::uint32_t i = 0; i < *size; ++i) {
    auto byte = reader.get<std::uint8_t>(data->offset + i);
    if (!byte) return std::nullopt;
    bytes.push_back(*byte);
  }
  return bytes;
}

// The RT_MANIFEST resource as text.
std::optional<std::string> read_manifest(const PeImage& image, const Reader& reader, std::uint32_t root_rva) {
  auto bytes = read_resource(image, reader, root_rva, kManifestType);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

// A version resource's blocks (VS_VERSIONINFO, StringFileInfo, StringTable, String): each is
// wLength, wValueLength, wType, a UTF-16 key, padding to 4 bytes, the value, padding, children.
// Layout: Microsoft "VS_VERSIONINFO structure" (learn.microsoft.com/windows/win32/menurc/vs-versioninfo).
class VersionBlocks {
 public:
  explicit VersionBlocks(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}

  struct Block {
    std::size_t begin = 0, end = 0;  // [begin, end) of the whole block
    std::uint16_t value_length = 0;
    std::uint16_t type = 0;
    std::string key;
    std::size_t value = 0;     // where the value starts
    std::size_t children = 0;  // where the children start
  };

  std::optional<Block> block_at(std::size_t at, std::size_t limit) const {
    auto length = u16(at);
    auto value_length = u16(at + 2);
    auto type = u16(at + 4);
    if (!length || !value_length || !type || *length < 6 || at + *length > limit) return std::nullopt;
    Block b{at, at + *length, *value_length, *type, {}, 0, 0};
    auto key = utf16(at + 6, b.end);
    if (!key) return std::nullopt;
    b.key = key->first;
    b.value = align(key->second);
    // Text values count UTF-16 units, binary values bytes.
    const std::size_t value_bytes = b.type == 1 ? std::size_t{b.value_length} * 2 : b.value_length;
    b.children = std::min(align(b.value + value_bytes), b.end);
    return b;
  }

  // The children of a block, in order; stops at the first one that does not fit.
  std::vector<Block> children(const Block& parent) const {
    std::vector<Block> out;
    for (std::size_t at = parent.children; at + 6 <= parent.end && out.size() < 256;) {
      auto child = block_at(at, parent.end);
      if (!child) break;
      out.push_back(*child);
      at = align(child->end);
    }
    return out;
  }

  std::optional<std::uint16_t> u16(std::size_t at) const {
    if (at + 2 > bytes_.size()) return std::nullopt;
    return static_cast<std::uint16_t>(bytes_[at] | (bytes_[at + 1] << 8));
  }
  std::optional<std::uint32_t> u32(std::size_t at) const {
    auto lo = u16(at);
    auto hi = u16(at + 2);
    if (!lo || !hi) return std::nullopt;
    return std::uint32_t{*lo} | (std::uint32_t{*hi} << 16);
  }

  // A NUL-terminated UTF-16 string before `limit`, as UTF-8, and where its NUL ends.
  std::optional<std::pair<std::string, std::size_t>> utf16(std::size_t at, std::size_t limit) const {
    std::string out;
    for (; at + 2 <= limit && out.size() <= detail::kMaxString; at += 2) {
      auto unit = u16(at);
      if (!unit) return std::nullopt;
      if (*unit == 0) return std::pair{out, at + 2};
      append_utf8(out, *unit);
    }
    return std::nullopt;
  }

 private:
  static std::size_t align(std::size_t at) { return (at + 3) & ~std::size_t{3}; }
  // Surrogates become U+FFFD: version strings are names and numbers.
  static void append_utf8(std::string& out, std::uint32_t c) {
    if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  const std::vector<std::uint8_t>& bytes_;
};

std::optional<VersionInfo> read_version(const PeImage& image, const Reader& reader, std::uint32_t root_rva) {
  auto bytes = read_resource(image, reader, root_rva, kVersionType);
  if (!bytes) return std::nullopt;
  VersionBlocks blocks(*bytes);
  auto root = blocks.block_at(0, bytes->size());
  if (!root || root->key != "VS_VERSION_INFO") return std::nullopt;
  VersionInfo info;
  constexpr std::uint32_t kFixedSignature = 0xFEEF04BD;
  if (root->value_length >= 52 && blocks.u32(root->value) == kFixedSignature) {
    auto ms = blocks.u32(root->value + 8);
    auto ls = blocks.u32(root->value + 12);
    if (ms && ls) info.file_version = fmt::format("{}.{}.{}.{}", *ms >> 16, *ms & 0xFFFF, *ls >> 16, *ls & 0xFFFF);
  }
  for (const auto& child : blocks.children(*root)) {
    if (child.key != "StringFileInfo") continue;
    auto tables = blocks.children(child);
    if (tables.empty()) break;
    for (const auto& entry : blocks.children(tables.front())) {
      if (entry.value_length == 0) {
        info.strings.emplace(entry.key, std::string{});
        continue;
      }
      auto value = blocks.utf16(entry.value, entry.end);
      if (value) info.strings.emplace(entry.key, value->first);
    }
    break;
  }
  return info;
}

// The names of the export table (IMAGE_EXPORT_DIRECTORY's name pointer table).
Status read_exports(const PeImage& image, const Reader& reader, std::uint32_t rva, std::vector<std::string>& out) {
  auto where = image.locate(rva);
  if (!where || where->offset + 40 > where->limit) return bad_pe("the export directory lies outside the file");
  auto count = reader.get<std::uint32_t>(where->offset + 24);
  auto names_rva = reader.get<std::uint32_t>(where->offset + 32);
  if (!count || !names_rva) return bad_pe("the export directory is truncated");
  if (*count > kMaxExports) return bad_pe(fmt::format("{} exported names (more than {})", *count, kMaxExports));
  if (*count == 0) return {};
  auto names = image.locate(*names_rva);
  if (!names || names->offset + std::uint64_t{*count} * 4 > names->limit) return bad_pe("the export name table runs past its section");
  out.reserve(*count);
  for (std::uint32_t i = 0; i < *count; ++i) {
    auto name_rva = reader.get<std::uint32_t>(names->offset + std::uint64_t{i} * 4);
    if (!name_rva) return bad_pe("the export name table is truncated");
    auto name = image.name_at(*name_rva, "exported");
    if (!name) return std::unexpected(name.error());
    out.push_back(std::move(*name));
  }
  return {};
}

}  // namespace

Result<Imports> parse_pe(const ByteSource& source) {
  Reader reader(source, true);
  auto mz = reader.get<std::uint16_t>(0);
  if (!mz || *mz != 0x5A4D) return bad_pe("no MZ header");
  auto lfanew = reader.get<std::uint32_t>(0x3c);
  if (!lfanew) return bad_pe("the DOS header is truncated");
  const std::uint64_t pe = *lfanew;
  auto signature = reader.get<std::uint32_t>(pe);
  if (!signature || *signature != 0x00004550) return bad_pe("no PE signature (an MS-DOS program, or truncated)");

  const std::uint64_t coff = pe + 4;
  auto machine = reader.get<std::uint16_t>(coff);
  auto section_count = reader.get<std::uint16_t>(coff + 2);
  auto optional_size = reader.get<std::uint16_t>(coff + 16);
  if (!machine || !section_count || !optional_size) return bad_pe("the COFF header is truncated");
  if (*section_count > kMaxSections) return bad_pe(fmt::format("{} sections (at most {} are loadable)", *section_count, kMaxSections));

  const std::uint64_t opt = coff + 20;
  auto magic = reader.get<std::uint16_t>(opt);
  if (!magic) return bad_pe("the optional header is truncated");
  Imports imports;
  imports.format = Format::pe;
  imports.machine = *machine;
  std::uint64_t image_base = 0;
  std::uint64_t directories_at = 0;
  std::optional<std::uint32_t> directory_count;
  if (*magic == 0x10b) {
    imports.is_64bit = false;
    image_base = reader.get<std::uint32_t>(opt + 28).value_or(0);
    directory_count = reader.get<std::uint32_t>(opt + 92);
    directories_at = opt + 96;
  } else if (*magic == 0x20b) {
    imports.is_64bit = true;
    image_base = reader.get<std::uint64_t>(opt + 24).value_or(0);
    directory_count = reader.get<std::uint32_t>(opt + 108);
    directories_at = opt + 112;
  } else {
    return bad_pe(fmt::format("unknown optional header magic {:#x}", *magic));
  }
  auto header_size = reader.get<std::uint32_t>(opt + 60);
  if (!directory_count || !header_size) return bad_pe("the optional header is truncated");
  // Only directories inside the declared optional header count.
  const std::uint64_t fits = directories_at - opt <= *optional_size ? (*optional_size - (directories_at - opt)) / 8 : 0;
  const std::uint64_t usable_directories = std::min<std::uint64_t>({std::uint64_t{*directory_count}, fits, std::uint64_t{16}});

  std::vector<Section> sections;
  const std::uint64_t table = opt + *optional_size;
  for (std::uint32_t i = 0; i < *section_count; ++i) {
    const std::uint64_t at = table + std::uint64_t{i} * 40;
    Section s;
    auto vsize = reader.get<std::uint32_t>(at + 8);
    auto vaddr = reader.get<std::uint32_t>(at + 12);
    auto rsize = reader.get<std::uint32_t>(at + 16);
    auto roff = reader.get<std::uint32_t>(at + 20);
    if (!vsize || !vaddr || !rsize || !roff) return bad_pe("the section table is truncated");
    s.virtual_size = *vsize;
    s.virtual_address = *vaddr;
    s.raw_size = *rsize;
    s.raw_offset = *roff;
    sections.push_back(s);
  }
  PeImage image(reader, std::move(sections), *header_size);

  struct Directory {
    std::uint32_t rva;
    std::uint32_t size;
  };
  auto directory = [&](std::uint32_t index) -> std::optional<Directory> {
    if (index >= usable_directories) return std::nullopt;
    auto rva = reader.get<std::uint32_t>(directories_at + std::uint64_t{index} * 8);
    auto size = reader.get<std::uint32_t>(directories_at + std::uint64_t{index} * 8 + 4);
    if (!rva || !size || *rva == 0) return std::nullopt;
    return Directory{*rva, *size};
  };
  if (auto dir = directory(kImportDirectory)) {
    if (auto ok = read_imports(image, reader, dir->rva, imports.needed); !ok) return std::unexpected(ok.error());
  }
  if (auto dir = directory(kDelayImportDirectory)) {
    if (auto ok = read_delay_imports(image, reader, dir->rva, dir->size, image_base, imports.delay_needed); !ok) {
      return std::unexpected(ok.error());
    }
  }
  if (auto dir = directory(kExportDirectory)) {
    if (auto ok = read_exports(image, reader, dir->rva, imports.exports); !ok) return std::unexpected(ok.error());
  }
  if (auto dir = directory(kResourceDirectory)) {
    imports.manifest = read_manifest(image, reader, dir->rva);
    imports.version = read_version(image, reader, dir->rva);
  }
  return imports;
}

}  // namespace zcuda::binfmt
