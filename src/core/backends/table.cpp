// Loading and validating manifests/backends.json (docs/manifest-format.md, "Backends").
#include <algorithm>
#include <initializer_list>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/backends/backends.hpp>
#include <zcuda/base/enum_words.hpp>
#include <zcuda/manifest/knowledge.hpp>

namespace zcuda::backends {

namespace {

using nlohmann::json;

std::unexpected<Error> bad(const std::string& where, const std::string& what) {
  return fail(ErrorKind::invalid_input, fmt::format("{}: {}", where, what),
              "Fix the backends data (format: docs/manifest-format.md, \"Backends\") and run the command again.");
}

// Unknown fields are errors: a misspelt key would otherwise drop a fact without a word.
Status only_fields(const json& object, const std::string& where, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) return bad(where, fmt::format("unknown field \"{}\"", key));
  }
  return {};
}

Result<std::string> text(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string() || it->get<std::string>().empty())
    return bad(where, fmt::format("\"{}\" must be a non-empty string", name));
  return it->get<std::string>();
}

std::string optional_text(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Absent or null: unknown. Otherwise a non-empty string.
Result<std::optional<std::string>> nullable_text(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string() || it->get<std::string>().empty()) return bad(where, fmt::format("\"{}\" must be null or a non-empty string", name));
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::vector<std::string>> text_list(const json& object, const char* name, const std::string& where, bool may_be_empty) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_array()) return bad(where, fmt::format("\"{}\" must be a list", name));
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string() || v.get<std::string>().empty()) return bad(where, fmt::format("\"{}\" holds a non-string or empty item", name));
    out.push_back(v.get<std::string>());
  }
  if (out.empty() && !may_be_empty) return bad(where, fmt::format("\"{}\" is empty: every row names its sources", name));
  return out;
}

bool is_https(const std::string& url) { return url.starts_with("https://") && url.find(' ') == std::string::npos && url.size() > 8; }

bool is_gfx(const std::string& gfx) {
  return gfx.size() > 3 && gfx.starts_with("gfx") &&
         std::all_of(gfx.begin() + 3, gfx.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Status known_sources(const Table& table, const std::vector<std::string>& keys, const std::string& where) {
  for (const auto& key : keys) {
    if (!table.sources.contains(key)) return bad(where, fmt::format("names source \"{}\", which \"sources\" lacks", key));
  }
  return {};
}

Result<std::map<std::string, SourceRef>> read_sources(const json& root) {
  auto it = root.find("sources");
  if (it == root.end() || !it->is_object() || it->empty()) return bad("sources", "must be a non-empty object");
  std::map<std::string, SourceRef> out;
  for (const auto& [key, value] : it->items()) {
    const std::string where = "sources." + key;
    if (!value.is_object()) return bad(where, "must be an object");
    if (auto ok = only_fields(value, where, {"url", "date", "what"}); !ok) return std::unexpected(ok.error());
    auto url = text(value, "url", where);
    if (!url) return std::unexpected(url.error());
    if (!is_https(*url)) return bad(where, fmt::format("\"url\" must be an https:// address, got \"{}\"", *url));
    auto what = text(value, "what", where);
    if (!what) return std::unexpected(what.error());
    out.emplace(key, SourceRef{key, *url, optional_text(value, "date"), *what});
  }
  return out;
}

Result<Channel> read_channel(const json& value, const std::string& where, const Table& table) {
  if (!value.is_object()) return bad(where, "must be an object");
  if (auto ok = only_fields(value, where, {"id", "os", "index_url", "wheel_folder", "packages", "python", "min_driver", "sources", "notes"}); !ok)
    return std::unexpected(ok.error());
  Channel c;
  auto id = text(value, "id", where);
  if (!id) return std::unexpected(id.error());
  c.id = *id;
  auto os = text_list(value, "os", where, false);
  if (!os) return std::unexpected(os.error());
  for (const auto& word : *os) {
    auto parsed = platform::os_from_id(word);
    if (!parsed) return bad(where, fmt::format("\"os\" holds \"{}\", not windows or linux", word));
    c.os.push_back(*parsed);
  }
  auto index = nullable_text(value, "index_url", where);
  if (!index) return std::unexpected(index.error());
  auto folder = nullable_text(value, "wheel_folder", where);
  if (!folder) return std::unexpected(folder.error());
  if (!*index && !*folder) return bad(where, "needs an \"index_url\" or a \"wheel_folder\"");
  for (const auto& url : {*index, *folder}) {
    if (url && !is_https(*url)) return bad(where, fmt::format("\"{}\" is not an https:// address", *url));
  }
  c.index_url = *index;
  c.wheel_folder = *folder;
  auto packages = text_list(value, "packages", where, false);
  if (!packages) return std::unexpected(packages.error());
  c.packages = *packages;
  if (value.contains("python") && !value.at("python").is_null()) {
    auto python = text_list(value, "python", where, false);
    if (!python) return std::unexpected(python.error());
    c.python = *python;
  }
  auto driver = nullable_text(value, "min_driver", where);
  if (!driver) return std::unexpected(driver.error());
  c.min_driver = *driver;
  auto sources = text_list(value, "sources", where, false);
  if (!sources) return std::unexpected(sources.error());
  if (auto ok = known_sources(table, *sources, where); !ok) return std::unexpected(ok.error());
  c.sources = *sources;
  c.notes = optional_text(value, "notes");
  return c;
}

Result<ZludaSetup> read_setup(const std::string& id, const json& value, const std::string& where, const Table& table) {
  if (!value.is_object()) return bad(where, "must be an object");
  if (auto ok = only_fields(value, where, {"family", "hip_sdk", "min_driver", "archive", "sources", "notes"}); !ok)
    return std::unexpected(ok.error());
  ZludaSetup z;
  z.id = id;
  auto family = text(value, "family", where);
  if (!family) return std::unexpected(family.error());
  if (*family != "upstream" && *family != "lshqqytiger") return bad(where, fmt::format("\"family\" is \"{}\", not upstream or lshqqytiger", *family));
  z.family = *family;
  for (auto [name, field] : {std::pair{"hip_sdk", &z.hip_sdk}, std::pair{"min_driver", &z.min_driver}, std::pair{"archive", &z.archive}}) {
    auto v = nullable_text(value, name, where);
    if (!v) return std::unexpected(v.error());
    *field = *v;
  }
  auto sources = text_list(value, "sources", where, false);
  if (!sources) return std::unexpected(sources.error());
  if (auto ok = known_sources(table, *sources, where); !ok) return std::unexpected(ok.error());
  z.sources = *sources;
  z.notes = optional_text(value, "notes");
  return z;
}

Result<std::optional<RocmTorch>> read_rocm(const json& parent, const char* os, const std::string& arch_where, const std::string& gfx,
                                           const Table& table) {
  const std::string where = arch_where + ".rocm_pytorch." + os;
  auto it = parent.find(os);
  if (it == parent.end() || it->is_null()) return std::optional<RocmTorch>();
  if (!it->is_object()) return bad(where, "must be an object or null");
  if (auto ok = only_fields(*it, where, {"status", "extra", "source", "note"}); !ok) return std::unexpected(ok.error());
  RocmTorch r;
  auto status = text(*it, "status", where);
  if (!status) return std::unexpected(status.error());
  auto parsed = enum_from_word(*status, {RocmStatus::release_ready, RocmStatus::preview, RocmStatus::build_only, RocmStatus::none});
  if (!parsed) return bad(where, fmt::format("\"status\" is \"{}\", not release-ready, preview, build-only or none", *status));
  r.status = *parsed;
  auto extra = nullable_text(*it, "extra", where);
  if (!extra) return std::unexpected(extra.error());
  if (*extra && **extra != "device-" + gfx) return bad(where, fmt::format("\"extra\" is \"{}\", not device-{}", **extra, gfx));
  if (*extra && r.status == RocmStatus::none) return bad(where, "an \"extra\" with status none");
  r.extra = *extra;
  auto source = text(*it, "source", where);
  if (!source) return std::unexpected(source.error());
  if (auto ok = known_sources(table, {*source}, where); !ok) return std::unexpected(ok.error());
  r.source = *source;
  r.note = optional_text(*it, "note");
  return std::optional<RocmTorch>(r);
}

Result<Arch> read_arch(const json& value, const std::string& where, const Table& table) {
  if (!value.is_object()) return bad(where, "must be an object");
  if (auto ok = only_fields(value, where, {"gfx", "cards", "rocm_pytorch", "native_pytorch_on_windows_by", "hip_sdk", "zluda", "sources", "note"});
      !ok)
    return std::unexpected(ok.error());
  Arch a;
  auto gfx = text(value, "gfx", where);
  if (!gfx) return std::unexpected(gfx.error());
  if (!is_gfx(*gfx)) return bad(where, fmt::format("\"gfx\" is \"{}\", not an LLVM target such as gfx1100", *gfx));
  a.gfx = *gfx;
  a.cards = optional_text(value, "cards");
  a.note = optional_text(value, "note");
  // The row's sources first: a row without them is refused whatever else it holds.
  auto sources = text_list(value, "sources", where, false);
  if (!sources) return std::unexpected(sources.error());
  if (auto ok = known_sources(table, *sources, where); !ok) return std::unexpected(ok.error());
  a.sources = *sources;
  std::vector<std::string> named;  // every source key the row's fields lean on

  auto rocm = value.find("rocm_pytorch");
  if (rocm == value.end() || !rocm->is_object()) return bad(where, "\"rocm_pytorch\" must be an object with \"windows\" and \"linux\"");
  if (auto ok = only_fields(*rocm, where + ".rocm_pytorch", {"windows", "linux"}); !ok) return std::unexpected(ok.error());
  auto windows = read_rocm(*rocm, "windows", where, a.gfx, table);
  if (!windows) return std::unexpected(windows.error());
  auto linux_entry = read_rocm(*rocm, "linux", where, a.gfx, table);
  if (!linux_entry) return std::unexpected(linux_entry.error());
  a.windows = *windows;
  a.linux = *linux_entry;
  for (const auto& r : {a.windows, a.linux}) {
    if (r) named.push_back(r->source);
  }

  auto by = text_list(value, "native_pytorch_on_windows_by", where, true);
  if (!by) return std::unexpected(by.error());
  if (auto ok = known_sources(table, *by, where + ".native_pytorch_on_windows_by"); !ok) return std::unexpected(ok.error());
  a.native_pytorch_on_windows_by = *by;
  named.insert(named.end(), by->begin(), by->end());

  auto hip = value.find("hip_sdk");
  if (hip == value.end() || !hip->is_object()) return bad(where, "\"hip_sdk\" must be an object (empty: no table row captured)");
  for (const auto& [version, word] : hip->items()) {
    const std::string at = where + ".hip_sdk." + version;
    auto table_source = table.hip_sdk_tables.find(version);
    if (table_source == table.hip_sdk_tables.end()) return bad(at, "no such version in \"hip_sdk_tables\"");
    auto parsed =
        word.is_string() ? enum_from_word(word.get<std::string>(), {HipSdkSupport::sdk, HipSdkSupport::runtime, HipSdkSupport::none}) : std::nullopt;
    if (!parsed) return bad(at, "must be \"sdk\", \"runtime\" or \"none\"");
    a.hip_sdk.emplace(version, *parsed);
    named.push_back(table_source->second);
  }

  auto zluda = value.find("zluda");
  if (zluda == value.end() || !zluda->is_object()) return bad(where, "\"zluda\" must be an object with \"upstream\" and \"windows\"");
  if (auto ok = only_fields(*zluda, where + ".zluda", {"upstream", "windows"}); !ok) return std::unexpected(ok.error());
  auto upstream = zluda->find("upstream");
  if (upstream == zluda->end() || !upstream->is_boolean()) return bad(where + ".zluda", "\"upstream\" must be true or false");
  a.zluda_upstream = upstream->get<bool>();
  auto setups = text_list(*zluda, "windows", where + ".zluda", true);
  if (!setups) return std::unexpected(setups.error());
  for (const auto& id : *setups) {
    auto setup = table.zluda_setups.find(id);
    if (setup == table.zluda_setups.end())
      return bad(where + ".zluda", fmt::format("\"windows\" names setup \"{}\", which \"zluda_setups\" lacks", id));
    named.insert(named.end(), setup->second.sources.begin(), setup->second.sources.end());
  }
  a.zluda_windows = *setups;
  if (a.zluda_upstream) {
    if (auto setup = table.zluda_setups.find("upstream"); setup != table.zluda_setups.end())
      named.insert(named.end(), setup->second.sources.begin(), setup->second.sources.end());
  }

  for (const auto& key : named) {
    if (std::find(a.sources.begin(), a.sources.end(), key) == a.sources.end())
      return bad(where, fmt::format("a field leans on source \"{}\", which the row's \"sources\" does not list", key));
  }
  return a;
}

}  // namespace

std::string_view to_string(RocmStatus status) {
  switch (status) {
    case RocmStatus::release_ready:
      return "release-ready";
    case RocmStatus::preview:
      return "preview";
    case RocmStatus::build_only:
      return "build-only";
    case RocmStatus::none:
      return "none";
  }
  return "none";
}

std::string_view to_string(HipSdkSupport support) {
  switch (support) {
    case HipSdkSupport::sdk:
      return "sdk";
    case HipSdkSupport::runtime:
      return "runtime";
    case HipSdkSupport::none:
      return "none";
  }
  return "none";
}

const Arch* Table::find(std::string_view gfx) const {
  auto it = std::find_if(archs.begin(), archs.end(), [&](const Arch& a) { return a.gfx == gfx; });
  return it == archs.end() ? nullptr : &*it;
}

const Channel* Table::channel(std::string_view id) const {
  auto it = std::find_if(channels.begin(), channels.end(), [&](const Channel& c) { return c.id == id; });
  return it == channels.end() ? nullptr : &*it;
}

const SourceRef* Table::source(std::string_view key) const {
  auto it = sources.find(std::string(key));
  return it == sources.end() ? nullptr : &it->second;
}

Result<Table> parse_table(std::string_view json_text) {
  const json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) return bad("backends", "not a JSON object");
  if (auto ok =
          only_fields(root, "backends",
                      {"schema", "about", "checked", "sources", "hip_sdk_tables", "pytorch_channels", "advice_channel", "zluda_setups", "archs"});
      !ok)
    return std::unexpected(ok.error());
  if (root.value("schema", 0) != 1) return bad("schema", "must be 1");
  Table table;
  table.checked = optional_text(root, "checked");
  auto sources = read_sources(root);
  if (!sources) return std::unexpected(sources.error());
  table.sources = std::move(*sources);

  auto tables = root.find("hip_sdk_tables");
  if (tables == root.end() || !tables->is_object()) return bad("hip_sdk_tables", "must be an object of HIP SDK version to source key");
  for (const auto& [version, key] : tables->items()) {
    if (!key.is_string()) return bad("hip_sdk_tables." + version, "must be a source key");
    if (auto ok = known_sources(table, {key.get<std::string>()}, "hip_sdk_tables." + version); !ok) return std::unexpected(ok.error());
    table.hip_sdk_tables.emplace(version, key.get<std::string>());
  }

  auto channels = root.find("pytorch_channels");
  if (channels == root.end() || !channels->is_array() || channels->empty()) return bad("pytorch_channels", "must be a non-empty list");
  std::set<std::string> channel_ids;
  for (std::size_t i = 0; i < channels->size(); ++i) {
    auto c = read_channel(channels->at(i), fmt::format("pytorch_channels[{}]", i), table);
    if (!c) return std::unexpected(c.error());
    if (!channel_ids.insert(c->id).second) return bad(fmt::format("pytorch_channels[{}]", i), fmt::format("id \"{}\" appears twice", c->id));
    table.channels.push_back(std::move(*c));
  }
  auto advice = text(root, "advice_channel", "backends");
  if (!advice) return std::unexpected(advice.error());
  const Channel* chosen = table.channel(*advice);
  if (!chosen || !chosen->index_url) return bad("advice_channel", fmt::format("\"{}\" is not a channel with an index_url", *advice));
  table.advice_channel = *advice;

  auto setups = root.find("zluda_setups");
  if (setups == root.end() || !setups->is_object() || setups->empty()) return bad("zluda_setups", "must be a non-empty object");
  for (const auto& [id, value] : setups->items()) {
    auto z = read_setup(id, value, "zluda_setups." + id, table);
    if (!z) return std::unexpected(z.error());
    table.zluda_setups.emplace(id, std::move(*z));
  }
  if (!table.zluda_setups.contains("upstream")) return bad("zluda_setups", "lacks \"upstream\"");

  auto archs = root.find("archs");
  if (archs == root.end() || !archs->is_array() || archs->empty()) return bad("archs", "must be a non-empty list");
  for (std::size_t i = 0; i < archs->size(); ++i) {
    auto a = read_arch(archs->at(i), fmt::format("archs[{}]", i), table);
    if (!a) return std::unexpected(a.error());
    if (table.find(a->gfx)) return bad(fmt::format("archs[{}]", i), fmt::format("{} appears twice", a->gfx));
    table.archs.push_back(std::move(*a));
  }
  return table;
}

Result<const Table*> embedded_table() {
  static const Result<Table> table = []() -> Result<Table> {
    auto text = knowledge::find("backends.json");
    if (!text) return fail(ErrorKind::internal, "manifests/backends.json is not embedded");
    auto parsed = parse_table(*text);
    if (!parsed) {
      Error e = parsed.error();
      e.kind = ErrorKind::internal;
      e.message = "the embedded manifests/backends.json is malformed: " + e.message;
      return std::unexpected(e);
    }
    return parsed;
  }();
  if (!table) return std::unexpected(table.error());
  return &*table;
}

}  // namespace zcuda::backends
