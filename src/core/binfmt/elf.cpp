// ELF (32- and 64-bit, either byte order): DT_NEEDED, DT_RUNPATH and DT_RPATH, found the way
// the dynamic loader finds them: through PT_DYNAMIC and the PT_LOAD segments, not the section
// headers (which a stripped file may lack). Layout: the System V gABI, "Dynamic Section".
#include <algorithm>

#include <fmt/format.h>

#include "reader.hpp"

namespace zcuda::binfmt {

namespace {

using detail::checked_add;
using detail::Reader;

constexpr std::uint32_t kMaxProgramHeaders = 4096;
constexpr std::uint64_t kMaxDynamicEntries = 65536;
constexpr std::size_t kMaxNeeded = 4096;

constexpr std::uint32_t PT_LOAD = 1;
constexpr std::uint32_t PT_DYNAMIC = 2;
constexpr std::uint64_t DT_NULL = 0, DT_NEEDED = 1, DT_STRTAB = 5, DT_STRSZ = 10, DT_RPATH = 15, DT_RUNPATH = 29;

std::unexpected<Error> bad_elf(std::string what) { return fail(ErrorKind::invalid_input, "Malformed ELF file: " + std::move(what)); }

struct Segment {
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t filesz = 0;
};

std::optional<std::uint64_t> widen(std::optional<std::uint32_t> v) {
  if (!v) return std::nullopt;
  return std::uint64_t{*v};
}

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// parse_elf's steps, in the loader's order: the file header, the program headers (PT_LOAD
// segments and PT_DYNAMIC), the dynamic entries, the string table they point into, the names.

struct Header {
  bool is64 = false;
  std::uint16_t machine = 0;
  std::uint64_t phoff = 0;
  std::uint16_t phentsize = 0;
  std::uint16_t phnum = 0;
};

// The identification bytes and the file header; `reader` is made for the file's byte order.
Result<Header> read_header(const ByteSource& source, std::optional<Reader>& reader) {
  std::array<std::byte, 16> ident{};
  if (!source.read(0, ident)) return bad_elf("the identification bytes are truncated");
  auto id = [&](std::size_t i) { return std::to_integer<unsigned char>(ident[i]); };
  if (id(0) != 0x7f || id(1) != 'E' || id(2) != 'L' || id(3) != 'F') return bad_elf("no ELF magic");
  const unsigned elf_class = id(4);
  const unsigned data = id(5);
  if (elf_class != 1 && elf_class != 2) return bad_elf(fmt::format("unknown class {}", elf_class));
  if (data != 1 && data != 2) return bad_elf(fmt::format("unknown byte order {}", data));
  const bool is64 = elf_class == 2;
  reader.emplace(source, data == 1);

  auto machine = reader->get<std::uint16_t>(18);
  std::optional<std::uint64_t> phoff = is64 ? reader->get<std::uint64_t>(32) : widen(reader->get<std::uint32_t>(28));
  auto phentsize = reader->get<std::uint16_t>(is64 ? 54 : 42);
  auto phnum = reader->get<std::uint16_t>(is64 ? 56 : 44);
  if (!machine || !phoff || !phentsize || !phnum) return bad_elf("the file header is truncated");
  return Header{is64, *machine, *phoff, *phentsize, *phnum};
}

struct Segments {
  std::vector<Segment> loads;
  std::optional<Segment> dynamic;
};

Result<Segments> read_segments(const Reader& reader, const Header& h) {
  if (h.phnum == 0xffff) return bad_elf("extended program header numbering is not supported");
  if (h.phnum > kMaxProgramHeaders) return bad_elf(fmt::format("{} program headers", h.phnum));
  const std::uint64_t min_entry = h.is64 ? 56 : 32;
  if (h.phentsize < min_entry) return bad_elf(fmt::format("program header entries of {} bytes", h.phentsize));
  Segments segments;
  for (std::uint32_t i = 0; i < h.phnum; ++i) {
    auto at = checked_add(h.phoff, std::uint64_t{i} * h.phentsize);
    if (!at) return bad_elf("the program header table offset overflows");
    auto type = reader.get<std::uint32_t>(*at);
    std::optional<std::uint64_t> offset, vaddr, filesz;
    if (h.is64) {
      offset = reader.get<std::uint64_t>(*at + 8);
      vaddr = reader.get<std::uint64_t>(*at + 16);
      filesz = reader.get<std::uint64_t>(*at + 32);
    } else {
      offset = widen(reader.get<std::uint32_t>(*at + 4));
      vaddr = widen(reader.get<std::uint32_t>(*at + 8));
      filesz = widen(reader.get<std::uint32_t>(*at + 16));
    }
    if (!type || !offset || !vaddr || !filesz) return bad_elf("the program header table is truncated");
    const Segment s{*type, *offset, *vaddr, *filesz};
    if (s.type == PT_LOAD) segments.loads.push_back(s);
    if (s.type == PT_DYNAMIC && !segments.dynamic) segments.dynamic = s;
  }
  return segments;
}

// String table indexes of the entries, collected first: DT_STRTAB may come after the
// DT_NEEDED entries that use it.
struct DynamicEntries {
  std::vector<std::uint64_t> needed, runpath, rpath;
  std::optional<std::uint64_t> strtab, strsz;
};

Result<DynamicEntries> read_dynamic(const Reader& reader, bool is64, const Segment& dynamic) {
  const std::uint64_t entry_size = is64 ? 16 : 8;
  DynamicEntries d;
  const std::uint64_t entries = std::min(dynamic.filesz / entry_size, kMaxDynamicEntries);
  bool terminated = false;
  for (std::uint64_t i = 0; i < entries; ++i) {
    auto at = checked_add(dynamic.offset, i * entry_size);
    if (!at) return bad_elf("the dynamic section offset overflows");
    std::optional<std::uint64_t> tag, value;
    if (is64) {
      tag = reader.get<std::uint64_t>(*at);
      value = reader.get<std::uint64_t>(*at + 8);
    } else {
      tag = widen(reader.get<std::uint32_t>(*at));
      value = widen(reader.get<std::uint32_t>(*at + 4));
    }
    if (!tag || !value) return bad_elf("the dynamic section is truncated");
    if (*tag == DT_NULL) {
      terminated = true;
      break;
    }
    switch (*tag) {
      case DT_NEEDED:
        if (d.needed.size() >= kMaxNeeded) return bad_elf("too many DT_NEEDED entries");
        d.needed.push_back(*value);
        break;
      case DT_RUNPATH:
        d.runpath.push_back(*value);
        break;
      case DT_RPATH:
        d.rpath.push_back(*value);
        break;
      case DT_STRTAB:
        d.strtab = *value;
        break;
      case DT_STRSZ:
        d.strsz = *value;
        break;
      default:
        break;
    }
  }
  if (!terminated && entries == kMaxDynamicEntries) return bad_elf("the dynamic section has no end");
  return d;
}

// The file bytes [offset, limit) that hold the string table.
struct StringTable {
  std::uint64_t offset = 0;
  std::uint64_t limit = 0;
};

// DT_STRTAB is a virtual address: find the loaded segment whose file bytes hold it.
Result<StringTable> locate_string_table(const Reader& reader, const std::vector<Segment>& loads, std::uint64_t strtab, std::uint64_t strsz) {
  std::optional<std::uint64_t> table_offset;
  std::uint64_t table_limit = 0;
  for (const auto& load : loads) {
    if (strtab < load.vaddr || strtab - load.vaddr >= load.filesz) continue;
    table_offset = load.offset + (strtab - load.vaddr);
    auto end = checked_add(load.offset, load.filesz);
    if (!table_offset || !end || *table_offset < load.offset) return bad_elf("the string table's segment overflows");
    table_limit = *end;
    break;
  }
  if (!table_offset) return bad_elf("the string table is not in any loaded segment");
  if (auto end = checked_add(*table_offset, strsz); end && *end < table_limit) table_limit = *end;
  return StringTable{*table_offset, std::min(table_limit, reader.size())};
}

Result<std::string> string_at(const Reader& reader, const StringTable& table, std::uint64_t index, const char* what) {
  auto at = checked_add(table.offset, index);
  if (!at || *at >= table.limit) return bad_elf(fmt::format("a {} string lies outside the string table", what));
  auto text = reader.c_string(*at, table.limit);
  if (!text) return bad_elf(fmt::format("a {} string is not terminated", what));
  return *text;
}

Status resolve_names(const Reader& reader, const StringTable& table, const DynamicEntries& d, Imports& imports) {
  for (auto index : d.needed) {
    auto name = string_at(reader, table, index, "DT_NEEDED");
    if (!name) return std::unexpected(name.error());
    if (name->empty()) return bad_elf("an empty DT_NEEDED name");
    imports.needed.push_back(std::move(*name));
  }
  for (auto index : d.runpath) {
    auto list = string_at(reader, table, index, "DT_RUNPATH");
    if (!list) return std::unexpected(list.error());
    for (auto& p : split_paths(*list)) imports.runpath.push_back(std::move(p));
  }
  for (auto index : d.rpath) {
    auto list = string_at(reader, table, index, "DT_RPATH");
    if (!list) return std::unexpected(list.error());
    for (auto& p : split_paths(*list)) imports.rpath.push_back(std::move(p));
  }
  return {};
}

}  // namespace

Result<Imports> parse_elf(const ByteSource& source) {
  std::optional<Reader> reader;
  auto header = read_header(source, reader);
  if (!header) return std::unexpected(header.error());
  Imports imports;
  imports.format = Format::elf;
  imports.is_64bit = header->is64;
  imports.machine = header->machine;
  if (header->phnum == 0) return imports;  // an object file or a static binary without segments

  auto segments = read_segments(*reader, *header);
  if (!segments) return std::unexpected(segments.error());
  if (!segments->dynamic) return imports;  // statically linked

  auto dynamic = read_dynamic(*reader, header->is64, *segments->dynamic);
  if (!dynamic) return std::unexpected(dynamic.error());
  if (dynamic->needed.empty() && dynamic->runpath.empty() && dynamic->rpath.empty()) return imports;
  if (!dynamic->strtab || !dynamic->strsz) return bad_elf("the dynamic section names no string table");

  auto table = locate_string_table(*reader, segments->loads, *dynamic->strtab, *dynamic->strsz);
  if (!table) return std::unexpected(table.error());
  if (auto named = resolve_names(*reader, *table, *dynamic, imports); !named) return std::unexpected(named.error());
  return imports;
}

}  // namespace zcuda::binfmt
