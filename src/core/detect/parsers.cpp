#include "parsers.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "system_view.hpp"
#include <zcuda/base/ascii.hpp>
#include <zcuda/base/whole_number.hpp>

namespace zcuda::detect {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace

Result<std::map<std::string, std::uint64_t>> parse_kfd_properties(std::string_view text) {
  std::map<std::string, std::uint64_t> values;
  int line_number = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_number;
    std::string line = trim(raw);
    if (line.empty()) continue;
    auto space = line.find_first_of(" \t");
    if (space == std::string::npos) {
      return fail(ErrorKind::invalid_input, fmt::format("line {}: \"{}\" has no value", line_number, line));
    }
    std::string key = line.substr(0, space);
    std::string value = trim(std::string_view(line).substr(space));
    const auto number = whole_number<std::uint64_t>(value);
    if (!number) {
      return fail(ErrorKind::invalid_input, fmt::format("line {}: the value of {} is not a number: \"{}\"", line_number, key, value));
    }
    values[key] = *number;
  }
  if (values.empty()) return fail(ErrorKind::invalid_input, "the properties file is empty");
  return values;
}

Result<std::string> gfx_from_target_version(std::uint64_t version) {
  if (version == 0) return std::string();
  std::uint64_t major = version / 10000;
  std::uint64_t minor = (version / 100) % 100;
  std::uint64_t stepping = version % 100;
  // The ISA name holds minor and stepping as one hex digit each.
  if (minor > 0xf || stepping > 0xf || major == 0 || major > 99) {
    return fail(ErrorKind::invalid_input, fmt::format("gfx_target_version {} is not a valid MMmmss value", version));
  }
  return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

Result<std::uint32_t> parse_hex_id(std::string_view text) {
  std::string t = trim(text);
  std::string_view v(t);
  if (v.starts_with("0x") || v.starts_with("0X")) v.remove_prefix(2);
  const auto id = whole_number<std::uint32_t>(v, 16);
  if (v.size() > 8 || !id) {
    return fail(ErrorKind::invalid_input, fmt::format("\"{}\" is not a hexadecimal id", t));
  }
  return *id;
}

const AmdgpuIdEntry* AmdgpuIds::find(std::uint32_t device_id, std::uint32_t revision) const {
  for (const auto& e : entries) {
    if (e.device_id == device_id && e.revision == revision) return &e;
  }
  return nullptr;
}

Result<AmdgpuIds> parse_amdgpu_ids(std::string_view text) {
  AmdgpuIds ids;
  int line_number = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_number;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (ids.version.empty()) {
      ids.version = line;
      if (line.find(',') != std::string::npos) {
        return fail(ErrorKind::invalid_input, fmt::format("line {}: expected the file version, found an entry", line_number));
      }
      continue;
    }
    auto c1 = line.find(',');
    auto c2 = c1 == std::string::npos ? std::string::npos : line.find(',', c1 + 1);
    if (c2 == std::string::npos) {
      return fail(ErrorKind::invalid_input, fmt::format("line {}: expected \"device,revision,name\"", line_number));
    }
    auto device = parse_hex_id(std::string_view(line).substr(0, c1));
    auto revision = parse_hex_id(std::string_view(line).substr(c1 + 1, c2 - c1 - 1));
    std::string name = trim(std::string_view(line).substr(c2 + 1));
    if (!device || !revision || *device > 0xffff || *revision > 0xff || name.empty()) {
      return fail(ErrorKind::invalid_input, fmt::format("line {}: malformed entry \"{}\"", line_number, line));
    }
    ids.entries.push_back({*device, *revision, std::move(name)});
  }
  if (ids.version.empty()) return fail(ErrorKind::invalid_input, "the file has no version line");
  return ids;
}

std::optional<std::string> parse_pci_address(std::string_view text) {
  // [domain:]bus:device.function, with 4, 2, 2 and 1 hex digits (domains may be wider on some
  // systems: up to 8).
  auto hex = [](std::string_view part, std::size_t min, std::size_t max) {
    return part.size() >= min && part.size() <= max &&
           std::all_of(part.begin(), part.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  };
  std::string_view domain = "0000";
  auto first = text.find(':');
  auto second = first == std::string_view::npos ? std::string_view::npos : text.find(':', first + 1);
  if (second != std::string_view::npos) {
    domain = text.substr(0, first);
    text = text.substr(first + 1);
  }
  auto colon = text.find(':');
  auto dot = text.find('.');
  if (colon == std::string_view::npos || dot == std::string_view::npos || dot < colon) return std::nullopt;
  std::string_view bus = text.substr(0, colon), device = text.substr(colon + 1, dot - colon - 1), function = text.substr(dot + 1);
  if (!hex(domain, 4, 8) || !hex(bus, 2, 2) || !hex(device, 2, 2) || !hex(function, 1, 1)) return std::nullopt;
  return ascii_lower(fmt::format("{}:{}:{}.{}", domain, bus, device, function));
}

std::map<std::string, std::string> parse_key_values(std::string_view text) {
  std::map<std::string, std::string> values;
  for (std::string_view raw : split_lines(text)) {
    auto eq = raw.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string value = trim(raw.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    values[trim(raw.substr(0, eq))] = value;
  }
  return values;
}

int compare_versions(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    auto take = [](std::string_view& s) {
      auto dot = s.find_first_of(".-");
      std::string_view part = s.substr(0, dot);
      s = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
      return part;
    };
    std::string_view pa = take(a), pb = take(b);
    const auto na = whole_number<unsigned long long>(pa.empty() ? std::string_view("0") : pa);
    const auto nb = whole_number<unsigned long long>(pb.empty() ? std::string_view("0") : pb);
    if (na && nb) {
      if (*na != *nb) return *na < *nb ? -1 : 1;
    } else if (pa != pb) {
      return pa < pb ? -1 : 1;
    }
  }
  return 0;
}

}  // namespace zcuda::detect
