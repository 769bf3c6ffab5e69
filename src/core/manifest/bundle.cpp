// The knowledge bundle's index and signature: parsing, and the checks of the signature chain,
// the times and the files (docs/knowledge.md).
#include <zcuda/manifest/bundle.hpp>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <zcuda/base/sha256.hpp>
#include <zcuda/base/version.hpp>
#include <zcuda/manifest/ed25519.hpp>
#include <zcuda/platform/test_hooks.hpp>

namespace zcuda::knowledge {

namespace {

using nlohmann::json;

// The project's root public keys (hex). Empty: the project has no release key yet, so a release
// build trusts no published bundle and keeps its compiled-in one (docs/knowledge.md says so).
constexpr std::string_view kRootKeys[] = {""};

std::optional<int> number(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "1.2.3" against "1.10": numeric parts, missing ones count as 0.
int compare_versions(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    auto take = [](std::string_view& s) {
      const auto dot = s.find('.');
      const auto part = s.substr(0, dot);
      s = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
      return number(part).value_or(0);
    };
    const int x = take(a), y = take(b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string age_text(std::chrono::seconds age) {
  const auto days = age.count() / 86400;
  if (days >= 1) return fmt::format("{} day{}", days, days == 1 ? "" : "s");
  const auto hours = age.count() / 3600;
  if (hours >= 1) return fmt::format("{} hour{}", hours, hours == 1 ? "" : "s");
  return fmt::format("{} seconds", age.count());
}

Error invalid(std::string message) {
  return Error{ErrorKind::invalid_input, std::move(message), "The bundle is damaged or not a zcuda knowledge bundle.", {}};
}

constexpr std::pair<Refusal, std::string_view> kRefusalNames[] = {
    {Refusal::untrusted_key, "untrusted_key"}, {Refusal::bad_signature, "bad_signature"},
    {Refusal::rollback, "rollback"},           {Refusal::expired, "expired"},
    {Refusal::mismatch, "mismatch"},           {Refusal::too_large, "too_large"},
    {Refusal::too_slow, "too_slow"},           {Refusal::foreign_redirect, "foreign_redirect"},
};
constexpr std::string_view kRefusedPrefix = "refused: ";

}  // namespace

std::string_view to_string(Refusal why) {
  for (const auto& [r, name] : kRefusalNames) {
    if (r == why) return name;
  }
  return "unknown";
}

Error refused(Refusal why, Error error) {
  error.notes.push_back(std::string(kRefusedPrefix) + std::string(to_string(why)));
  return error;
}

std::unexpected<Error> refuse(Refusal why, ErrorKind kind, std::string message, std::string hint) {
  return std::unexpected(refused(why, Error{kind, std::move(message), std::move(hint), {}}));
}

std::optional<Refusal> refusal_of(const Error& error) {
  for (const auto& note : error.notes) {
    if (!note.starts_with(kRefusedPrefix)) continue;
    for (const auto& [r, name] : kRefusalNames) {
      if (note.substr(kRefusedPrefix.size()) == name) return r;
    }
  }
  return std::nullopt;
}

const FileEntry* Index::file(std::string_view name) const {
  for (const auto& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string format_time(Time time) {
  const auto days = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day ymd{days};
  const std::chrono::hh_mm_ss hms{time - days};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

std::optional<Time> parse_time(std::string_view text) {
  // Exactly YYYY-MM-DDThh:mm:ssZ: one spelling, so a signed text has one meaning.
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':' || text[19] != 'Z') {
    return std::nullopt;
  }
  const auto y = number(text.substr(0, 4)), mo = number(text.substr(5, 2)), d = number(text.substr(8, 2));
  const auto h = number(text.substr(11, 2)), mi = number(text.substr(14, 2)), s = number(text.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !s || *h > 23 || *mi > 59 || *s > 59) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*y), std::chrono::month(static_cast<unsigned>(*mo)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  return Time{std::chrono::sys_days(ymd)} + std::chrono::hours(*h) + std::chrono::minutes(*mi) + std::chrono::seconds(*s);
}

Time now() { return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()); }

bool is_plain_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

Result<Index> parse_index(std::string_view text) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::unexpected(invalid("The knowledge index is not a JSON object"));
  Index index;
  try {
    index.schema = doc.at("schema").get<int>();
    if (index.schema != kBundleSchema) {
      return fail(ErrorKind::unsupported, fmt::format("The knowledge index has schema {}; this zcuda reads schema {}", index.schema, kBundleSchema),
                  "Update zcuda to read this bundle.");
    }
    index.version = doc.at("version").get<std::uint64_t>();
    const auto published = parse_time(doc.at("published").get<std::string>());
    const auto expires = parse_time(doc.at("expires").get<std::string>());
    if (!published || !expires) return std::unexpected(invalid("The knowledge index's times are not of the form 2026-12-06T20:54:32Z"));
    index.published = *published;
    index.expires = *expires;
    index.min_zcuda = doc.at("min_zcuda").get<std::string>();
    for (const auto& f : doc.at("files")) {
      FileEntry entry{f.at("name").get<std::string>(), f.at("size").get<std::uint64_t>(), f.at("sha256").get<std::string>()};
      if (!is_plain_name(entry.name))
        return std::unexpected(invalid(fmt::format("The knowledge index names a file \"{}\" that is not a plain file name", entry.name)));
      if (!is_sha256_hex(entry.sha256))
        return std::unexpected(invalid(fmt::format("The knowledge index's digest of {} is not 64 lowercase hex digits", entry.name)));
      if (entry.size > kMaxFileBytes)
        return std::unexpected(
            invalid(fmt::format("The knowledge index gives {} a size of {} bytes, over the bound of {}", entry.name, entry.size, kMaxFileBytes)));
      if (index.file(entry.name) != nullptr) return std::unexpected(invalid(fmt::format("The knowledge index lists {} twice", entry.name)));
      index.files.push_back(std::move(entry));
    }
  } catch (const json::exception& e) {
    return std::unexpected(invalid(fmt::format("The knowledge index is malformed: {}", e.what())));
  }
  return index;
}

std::string index_to_json(const Index& index) {
  json files = json::array();
  for (const auto& f : index.files) files.push_back({{"name", f.name}, {"size", f.size}, {"sha256", f.sha256}});
  const json doc = {{"schema", index.schema},
                    {"version", index.version},
                    {"published", format_time(index.published)},
                    {"expires", format_time(index.expires)},
                    {"min_zcuda", index.min_zcuda},
                    {"files", files}};
  return doc.dump(2) + "\n";
}

Result<Signature> parse_signature(std::string_view text) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::unexpected(invalid("The knowledge signature is not a JSON object"));
  try {
    Signature s;
    const auto& key = doc.at("signing_key");
    s.key = key.at("public").get<std::string>();
    const auto expires = parse_time(key.at("expires").get<std::string>());
    if (!expires) return std::unexpected(invalid("The signing key's expiry is not of the form 2026-12-06T20:54:32Z"));
    s.key_expires = *expires;
    s.root = key.at("root").get<std::string>();
    s.root_signature = key.at("root_signature").get<std::string>();
    s.signature = doc.at("signature").get<std::string>();
    return s;
  } catch (const json::exception& e) {
    return std::unexpected(invalid(fmt::format("The knowledge signature is malformed: {}", e.what())));
  }
}

std::string signature_to_json(const Signature& s) {
  const json doc = {
      {"signing_key", {{"public", s.key}, {"expires", format_time(s.key_expires)}, {"root", s.root}, {"root_signature", s.root_signature}}},
      {"signature", s.signature}};
  return doc.dump(2) + "\n";
}

std::string key_statement(std::string_view key, Time expires) {
  return fmt::format("zcuda knowledge signing key v1\nkey {}\nexpires {}\n", key, format_time(expires));
}

std::vector<std::string> trusted_roots() {
  std::vector<std::string> roots;
  for (auto key : kRootKeys) {
    if (!key.empty()) roots.emplace_back(key);
  }
  if (auto test_root = platform::test_hooks::knowledge_root()) roots.push_back(*test_root);
  return roots;
}

Result<Index> verify_index(std::string_view index_text, std::string_view signature_text, const std::vector<std::string>& roots) {
  auto signature = parse_signature(signature_text);
  if (!signature) return std::unexpected(signature.error());
  if (std::find(roots.begin(), roots.end(), signature->root) == roots.end()) {
    Error error{ErrorKind::integrity,
                "The knowledge bundle's signing key is vouched for by a root key this zcuda does not trust",
                roots.empty() ? "This build embeds no root key yet (docs/knowledge.md): it keeps its compiled-in knowledge."
                              : "Use the project's feed or a mirror of it; a bundle signed by anyone else is never used.",
                {}};
    error.with_note("root: " + signature->root.substr(0, 64));
    return std::unexpected(refused(Refusal::untrusted_key, std::move(error)));
  }
  if (!verify(signature->root, key_statement(signature->key, signature->key_expires), signature->root_signature)) {
    return refuse(Refusal::bad_signature, ErrorKind::integrity, "The root's signature of the knowledge signing key does not verify",
                  "The bundle was altered or damaged on its way; nothing was changed.");
  }
  if (!verify(signature->key, index_text, signature->signature)) {
    return refuse(Refusal::bad_signature, ErrorKind::integrity, "The knowledge index's signature does not verify",
                  "The bundle was altered or damaged on its way; nothing was changed.");
  }
  auto index = parse_index(index_text);
  if (!index) return index;
  if (compare_versions(version(), index->min_zcuda) < 0) {
    return fail(ErrorKind::unsupported,
                fmt::format("Knowledge bundle {} needs zcuda {} or newer; this is {}", index->version, index->min_zcuda, version()),
                "Update zcuda; until then it keeps the knowledge it has.");
  }
  return index;
}

Status check_fresh(const Index& index, std::string_view signature_text, Time at) {
  if (at > index.expires) {
    return refuse(Refusal::expired, ErrorKind::integrity,
                  fmt::format("Knowledge bundle {} expired {} ago ({}); published {}", index.version, age_text(at - index.expires),
                              format_time(index.expires), format_time(index.published)),
                  "A feed that serves an expired bundle is stale or frozen by someone in the way; try again later or another mirror.");
  }
  auto signature = parse_signature(signature_text);
  if (!signature) return std::unexpected(signature.error());
  if (at > signature->key_expires) {
    return refuse(Refusal::expired, ErrorKind::integrity,
                  fmt::format("The key that signed knowledge bundle {} expired {} ago ({})", index.version, age_text(at - signature->key_expires),
                              format_time(signature->key_expires)),
                  "The publisher must sign with a current key; try again later.");
  }
  return {};
}

Status check_file(const FileEntry& entry, std::string_view content) {
  if (content.size() != entry.size) {
    return refuse(Refusal::mismatch, ErrorKind::integrity,
                  fmt::format("{} has {} bytes; the signed index says {}", entry.name, content.size(), entry.size),
                  "The file does not belong to this index (mixed or truncated); nothing was changed.");
  }
  Sha256 hasher;
  hasher.update(content.data(), content.size());
  if (const auto digest = hasher.hex_digest(); digest != entry.sha256) {
    Error error{ErrorKind::integrity,
                fmt::format("{} does not match the digest in the signed index", entry.name),
                "The file does not belong to this index (mixed or altered); nothing was changed.",
                {}};
    error.with_note("expected sha256 " + entry.sha256).with_note("actual   sha256 " + digest);
    return std::unexpected(refused(Refusal::mismatch, std::move(error)));
  }
  return {};
}

}  // namespace zcuda::knowledge
