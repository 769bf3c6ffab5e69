#include <zcuda/base/enum_words.hpp>
#include <zcuda/manifest/manifest.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include <fmt/format.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/ascii.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::manifest {

namespace {

using nlohmann::json;

// Collects the first problem with the JSON path it was found at.
class Checker {
 public:
  explicit Checker(std::string_view origin) : origin_(origin) {}

  std::unexpected<Error> error(const std::string& path, const std::string& what) const {
    Error e{ErrorKind::invalid_input,
            fmt::format("{}: {}", path, what),
            "Fix the manifest (format: docs/manifest-format.md) and run the command again.",
            {}};
    e.notes.push_back(fmt::format("manifest: {}", origin_));
    return std::unexpected(std::move(e));
  }

 private:
  std::string origin_;
};

bool all_of_chars(std::string_view text, auto predicate) {
  return std::all_of(text.begin(), text.end(), [&](char c) { return predicate(static_cast<unsigned char>(c)); });
}

// Folder-name-safe identifiers: no separators, no leading dot, nothing Windows refuses.
bool is_name(std::string_view text, bool lowercase_only) {
  if (text.empty() || text.size() > 100 || !std::isalnum(static_cast<unsigned char>(text.front()))) return false;
  return all_of_chars(text, [&](unsigned char c) {
    if (lowercase_only) return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '+';
  });
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The last path segment of a URL, without query or fragment.
std::string file_name_of(std::string_view url) {
  auto end = url.find_first_of("?#");
  if (end != std::string_view::npos) url = url.substr(0, end);
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  url = url.substr(scheme + 3);
  auto slash = url.rfind('/');
  if (slash == std::string_view::npos) return {};
  return percent_decode(url.substr(slash + 1));
}

bool is_single_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && is_safe_relative_path(name) && name.find('/') == std::string_view::npos;
}

bool url_scheme_ok(std::string_view url) { return url.starts_with("https://") || url.starts_with("http://") || url.starts_with("file://"); }

std::string type_name(const json& value) { return value.type_name(); }

struct Fields {
  const json& object;
  std::string path;
  const Checker& check;

  Result<const json*> get(const char* key, bool required) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) return check.error(path, fmt::format("missing required field \"{}\"", key));
      return nullptr;
    }
    return &*it;
  }
  Result<std::optional<std::string>> string(const char* key, bool required) const {
    auto value = get(key, required);
    if (!value) return std::unexpected(value.error());
    if (*value == nullptr) return std::nullopt;
    if (!(*value)->is_string()) return check.error(path + "." + key, "expected a string, got " + type_name(**value));
    auto text = (*value)->get<std::string>();
    if (text.empty()) return check.error(path + "." + key, "must not be empty");
    return text;
  }
};

// parse_artifact reads an entry in four steps, each filling its part of the Artifact: what it
// is (identity), where its bytes come from and what they are (source), what is inside
// (contents), and the terms it comes with (terms). Each step stops at the first bad field, with
// that field's JSON path.

Status check_known_fields(const json& entry, const std::string& path, const Checker& check) {
  if (!entry.is_object()) return check.error(path, "expected an object, got " + type_name(entry));
  static const std::set<std::string> known = {"id",   "component", "version", "channel",  "os",      "url",       "mirrors",        "sha256",
                                              "size", "archive",   "root",    "optional", "license", "file_name", "expected_files", "notes"};
  for (const auto& [key, value] : entry.items()) {
    if (!known.contains(key)) return check.error(path + "." + key, "unknown field (format 1 has no such field; a typo?)");
  }
  return {};
}

// A list field whose items are strings, each checked by `valid` (which names what it expects).
Result<std::vector<std::string>> string_list(const Fields& f, const std::string& key, const char* expected_list,
                                             const std::function<std::optional<std::string>(const std::string&)>& invalid) {
  std::vector<std::string> out;
  auto list = f.get(key.c_str(), false);
  if (!list) return std::unexpected(list.error());
  if (!*list) return out;
  if (!(*list)->is_array()) return f.check.error(f.path + "." + key, std::string(expected_list) + ", got " + type_name(**list));
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const auto& item = (**list)[i];
    const std::string item_path = fmt::format("{}.{}[{}]", f.path, key, i);
    if (!item.is_string()) return f.check.error(item_path, "expected a string, got " + type_name(item));
    if (auto why = invalid(item.get<std::string>())) return f.check.error(item_path, *why);
    out.push_back(item.get<std::string>());
  }
  return out;
}

Status parse_identity(const Fields& f, Artifact& a) {
  const std::string& path = f.path;
  const Checker& check = f.check;
  auto id = f.string("id", true);
  if (!id) return std::unexpected(id.error());
  if (!is_name(**id, false))
    return check.error(path + ".id",
                       fmt::format("\"{}\" is not a valid id (letters, digits, '.', '-', '_', '+'; starting with a letter or digit)", **id));
  a.id = **id;

  auto component = f.string("component", true);
  if (!component) return std::unexpected(component.error());
  if (!is_name(**component, true))
    return check.error(path + ".component", fmt::format("\"{}\" is not a valid component name (lowercase letters, digits, '-', '_')", **component));
  a.component = **component;

  auto version = f.string("version", true);
  if (!version) return std::unexpected(version.error());
  if (!is_name(**version, false))
    return check.error(
        path + ".version",
        fmt::format("\"{}\" is not a valid version (letters, digits, '.', '-', '_', '+'; starting with a letter or digit)", **version));
  a.version = **version;

  auto channel = f.string("channel", false);
  if (!channel) return std::unexpected(channel.error());
  if (*channel) {
    a.channel = channel_from_word(**channel);
    if (!a.channel) return check.error(path + ".channel", fmt::format("expected \"stable\" or \"latest\", got \"{}\"", **channel));
  }

  auto os = f.string("os", true);
  if (!os) return std::unexpected(os.error());
  if (**os == "windows")
    a.os = TargetOs::windows;
  else if (**os == "linux")
    a.os = TargetOs::linux;
  else if (**os == "any")
    a.os = TargetOs::any;
  else
    return check.error(path + ".os", fmt::format("expected \"windows\", \"linux\" or \"any\", got \"{}\"", **os));
  return {};
}

Status parse_source(const Fields& f, Artifact& a) {
  const std::string& path = f.path;
  const Checker& check = f.check;
  auto url = f.string("url", true);
  if (!url) return std::unexpected(url.error());
  if (!url_scheme_ok(**url)) return check.error(path + ".url", fmt::format("expected an https://, http:// or file:// URL, got \"{}\"", **url));
  a.url = **url;

  auto mirrors = string_list(f, "mirrors", "expected a list of URLs", [](const std::string& m) -> std::optional<std::string> {
    if (url_scheme_ok(m)) return std::nullopt;
    return fmt::format("expected an https://, http:// or file:// URL, got \"{}\"", m);
  });
  if (!mirrors) return std::unexpected(mirrors.error());
  a.mirrors = std::move(*mirrors);

  auto sha256 = f.string("sha256", true);
  if (!sha256) return std::unexpected(sha256.error());
  const std::string& digest = **sha256;
  if (digest.size() != 64) return check.error(path + ".sha256", fmt::format("expected 64 hex digits, got {}", digest.size()));
  for (std::size_t i = 0; i < digest.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(digest[i]))) {
      return check.error(path + ".sha256", fmt::format("expected hex digits, found '{}' at position {}", digest[i], i + 1));
    }
  }
  a.sha256 = ascii_lower(digest);

  auto size = f.get("size", false);
  if (!size) return std::unexpected(size.error());
  if (*size) {
    if (!(*size)->is_number_unsigned() || (*size)->get<std::uint64_t>() == 0) {
      return check.error(path + ".size", "expected a positive whole number of bytes, got " + (*size)->dump());
    }
    a.size = (*size)->get<std::uint64_t>();
  }

  auto file_name = f.string("file_name", false);
  if (!file_name) return std::unexpected(file_name.error());
  a.file_name = *file_name ? **file_name : file_name_of(a.url);
  if (!is_single_file_name(a.file_name)) {
    if (*file_name) return check.error(path + ".file_name", fmt::format("\"{}\" is not a plain file name", a.file_name));
    return check.error(path + ".url", "has no usable file name at its end; add \"file_name\"");
  }
  return {};
}

Status parse_contents(const Fields& f, Artifact& a) {
  const std::string& path = f.path;
  const Checker& check = f.check;
  auto archive = f.string("archive", true);
  if (!archive) return std::unexpected(archive.error());
  if (**archive == "zip")
    a.archive = ArchiveKind::zip;
  else if (**archive == "tar.gz")
    a.archive = ArchiveKind::tar_gz;
  else if (**archive == "none")
    a.archive = ArchiveKind::none;
  else
    return check.error(path + ".archive", fmt::format("expected \"zip\", \"tar.gz\" or \"none\", got \"{}\"", **archive));

  auto root = f.string("root", false);
  if (!root) return std::unexpected(root.error());
  if (*root) {
    std::string r = **root;
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    if (a.archive == ArchiveKind::none) return check.error(path + ".root", "only archives have a root folder (archive is \"none\")");
    if (!is_safe_relative_path(r)) return check.error(path + ".root", fmt::format("\"{}\" is not a relative folder path inside the archive", **root));
    a.root = r;
  }

  auto expected = string_list(f, "expected_files", "expected a list of paths", [](const std::string& e) -> std::optional<std::string> {
    if (is_safe_relative_path(e)) return std::nullopt;
    return fmt::format("\"{}\" is not a relative path with '/' separators", e);
  });
  if (!expected) return std::unexpected(expected.error());
  a.expected_files = std::move(*expected);
  return {};
}

Status parse_terms(const Fields& f, Artifact& a) {
  const std::string& path = f.path;
  const Checker& check = f.check;
  auto optional = f.get("optional", false);
  if (!optional) return std::unexpected(optional.error());
  if (*optional) {
    if (!(*optional)->is_boolean()) return check.error(path + ".optional", "expected true or false, got " + type_name(**optional));
    a.optional = (*optional)->get<bool>();
  }

  auto license = f.string("license", true);
  if (!license) return std::unexpected(license.error());
  a.license = **license;

  auto notes = f.get("notes", false);
  if (!notes) return std::unexpected(notes.error());
  if (*notes && !(*notes)->is_string()) return check.error(path + ".notes", "expected a string, got " + type_name(**notes));
  return {};
}

Result<Artifact> parse_artifact(const json& entry, const std::string& path, const Checker& check) {
  if (auto known = check_known_fields(entry, path, check); !known) return std::unexpected(known.error());
  const Fields f{entry, path, check};
  Artifact a;
  a.entry = entry;
  for (auto step : {parse_identity, parse_source, parse_contents, parse_terms}) {
    if (auto done = step(f, a); !done) return std::unexpected(done.error());
  }
  return a;
}

bool os_overlap(TargetOs a, TargetOs b) { return a == b || a == TargetOs::any || b == TargetOs::any; }
bool channel_overlap(const std::optional<Channel>& a, const std::optional<Channel>& b) { return !a || !b || *a == *b; }

// Entries that would fight over one folder, or leave the choice for an OS and channel open.
Status check_set(const std::vector<Artifact>& artifacts, const Checker& check) {
  for (std::size_t j = 0; j < artifacts.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      const auto& a = artifacts[i];
      const auto& b = artifacts[j];
      std::string path = fmt::format("artifacts[{}]", j);
      if (a.id == b.id) return check.error(path + ".id", fmt::format("\"{}\" is already the id of artifacts[{}]", b.id, i));
      // One release's archives for two OSes share a version name (upstream's v6 for Windows and
      // Linux); a machine installs its own OS's, so only entries one OS could install conflict.
      if (a.component == b.component && a.version == b.version && a.sha256 != b.sha256 && os_overlap(a.os, b.os)) {
        return check.error(path + ".version",
                           fmt::format("artifacts[{}] installs {} {} from other bytes; one folder cannot hold both", i, b.component, b.version));
      }
      if (a.component == b.component && os_overlap(a.os, b.os) && channel_overlap(a.channel, b.channel)) {
        return check.error(path + ".channel",
                           fmt::format("artifacts[{}] is already the {} artifact for os \"{}\" in channel \"{}\"; give each a distinct os or channel",
                                       i, b.component, to_string(b.os),
                                       b.channel   ? to_string(*b.channel)
                                       : a.channel ? to_string(*a.channel)
                                                   : "any"));
      }
    }
  }
  return {};
}

}  // namespace

std::string_view to_string(ArchiveKind kind) {
  switch (kind) {
    case ArchiveKind::zip:
      return "zip";
    case ArchiveKind::tar_gz:
      return "tar.gz";
    case ArchiveKind::none:
      return "none";
  }
  return "?";
}

std::string_view to_string(Channel channel) { return channel == Channel::stable ? "stable" : "latest"; }

std::optional<Channel> channel_from_word(std::string_view word) { return enum_from_word(word, {Channel::stable, Channel::latest}); }

std::string_view to_string(TargetOs os) {
  switch (os) {
    case TargetOs::windows:
      return "windows";
    case TargetOs::linux:
      return "linux";
    case TargetOs::any:
      return "any";
  }
  return "?";
}

bool is_safe_relative_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos || path.find(':') != std::string_view::npos ||
      path.find('\0') != std::string_view::npos) {
    return false;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    auto part = path.substr(start, end - start);
    if (part == ".." || part == "." || (part.empty() && end != path.size())) return false;
    start = end + 1;
  }
  return true;
}

Result<Manifest> parse(std::string_view json_text, std::string_view origin) {
  Checker check(origin);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    // Turn the byte offset into a line and column a person can find.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < json_text.size(); ++i) {
      if (json_text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return check.error("$", fmt::format("not valid JSON at line {}, column {}", line, column));
  }
  if (!doc.is_object()) return check.error("$", "expected an object, got " + type_name(doc));
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema" && key != "artifacts" && key != "notes") return check.error(key, "unknown field (format 1 has no such field; a typo?)");
  }
  auto schema = doc.find("schema");
  if (schema == doc.end()) return check.error("schema", "missing; format version 1 manifests start with \"schema\": 1");
  if (!schema->is_number_integer() || schema->get<long long>() != kFormatVersion) {
    return check.error("schema", fmt::format("this zcuda reads format version 1, got {}", schema->dump()));
  }
  auto list = doc.find("artifacts");
  if (list == doc.end()) return check.error("artifacts", "missing");
  if (!list->is_array()) return check.error("artifacts", "expected a list, got " + type_name(*list));
  if (list->empty()) return check.error("artifacts", "is empty");

  Manifest manifest;
  manifest.origin = std::string(origin);
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto artifact = parse_artifact((*list)[i], fmt::format("artifacts[{}]", i), check);
    if (!artifact) return std::unexpected(artifact.error());
    manifest.artifacts.push_back(std::move(*artifact));
  }
  if (auto ok = check_set(manifest.artifacts, check); !ok) return std::unexpected(ok.error());
  return manifest;
}

Result<Manifest> load_file(const std::filesystem::path& file) {
  auto text = platform::read_file(file, 4u << 20);
  if (!text) {
    Error e = text.error();
    if (e.kind == ErrorKind::not_found) e.hint = "Check the path given to --manifest.";
    return std::unexpected(std::move(e));
  }
  return parse(*text, path_to_utf8(file));
}

Result<Manifest> load_embedded() {
  auto text = knowledge::find("artifacts.json");
  if (!text) return fail(ErrorKind::internal, "this zcuda was built without its pinned manifest (artifacts.json)");
  return parse(*text, "embedded");
}

}  // namespace zcuda::manifest
