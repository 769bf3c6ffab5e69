// `zcuda update`: everything is fetched into memory under bounds and verified (signature chain,
// freshness, no rollback, every file's size and digest) before the first byte is written; then
// the bundle is staged in a folder, renamed into place, and the `current` pointer is replaced
// atomically, so a kill at any step leaves the old bundle or the new one in use, never a mix.
#include <zcuda/knowledge/update.hpp>

#include <map>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/io_error.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/time_name.hpp>
#include <zcuda/fetch/small.hpp>
#include <zcuda/manifest/embedded.hpp>
#include <zcuda/manifest/knowledge.hpp>
#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/test_hooks.hpp>

namespace zcuda::knowledge {

namespace fs = std::filesystem;

namespace {

bool is_url(std::string_view source) { return source.starts_with("https://") || source.starts_with("http://"); }

// Reads `name` from the feed, refusing more than `max_bytes`.
Result<std::string> read_from(const UpdateOptions& options, std::string_view name, std::uint64_t max_bytes) {
  if (is_url(options.source)) {
    std::string url = options.source;
    if (!url.ends_with('/')) url += '/';
    url += name;
    auto got = fetch::get_small({url, max_bytes, options.time_limit, options.ca_bundle, 5});
    if (got) return std::move(*got);
    switch (got.error().why) {
      case fetch::SmallFailure::too_large:
        return std::unexpected(refused(Refusal::too_large, got.error().error));
      case fetch::SmallFailure::too_slow:
        return std::unexpected(refused(Refusal::too_slow, got.error().error));
      case fetch::SmallFailure::foreign_redirect:
        return std::unexpected(refused(Refusal::foreign_redirect, got.error().error));
      case fetch::SmallFailure::other:
        break;
    }
    return std::unexpected(got.error().error);
  }
  const fs::path file = path_from_utf8(options.source) / path_from_utf8(std::string(name));
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) {
    return fail(ec == std::errc::no_such_file_or_directory ? ErrorKind::not_found : ErrorKind::io,
                fmt::format("Could not read {}: {}", path_to_utf8(file), ec.message()),
                "--from names a folder that holds index.json, index.json.sig and the files.");
  }
  if (size > max_bytes) {
    return refuse(Refusal::too_large, ErrorKind::integrity,
                  fmt::format("{} has {} bytes, more than the {} bytes allowed for it", path_to_utf8(file), size, max_bytes));
  }
  return platform::read_file(file, max_bytes);
}

Status install(const UpdateOptions& options, const Index& index, const std::string& index_text, const std::string& signature_text,
               const std::map<std::string, std::string>& files, fs::path& location) {
  std::error_code ec;
  fs::create_directories(options.folder, ec);
  if (ec) return std::unexpected(io_error("create", options.folder, ec));
  auto lock = platform::lock_file(options.folder / ".lock", platform::LockWait{});
  if (!lock) return std::unexpected(lock.error());
  // Another update may have installed a newer bundle while this one was verifying.
  if (const auto pointer = read_pointer(options.folder); pointer && *pointer > index.version) {
    return refuse(Refusal::rollback, ErrorKind::integrity,
                  fmt::format("Knowledge bundle {} was installed meanwhile; {} is older", *pointer, index.version), "Nothing was changed.");
  }
  // Leftovers of an update that was killed: never in use, so safe to drop.
  for (const auto& entry : fs::directory_iterator(options.folder, ec)) {
    if (path_to_utf8(entry.path().filename()).starts_with(".staging-")) fs::remove_all(entry.path(), ec);
  }
  const fs::path staging = options.folder / (".staging-" + time_ordered_name());
  fs::create_directories(staging, ec);
  if (ec) return std::unexpected(io_error("create", staging, ec));
  for (const auto& [name, content] : files) {
    if (auto written = platform::write_file_atomic(staging / name, content); !written) return written;
  }
  if (auto written = platform::write_file_atomic(staging / kSignatureName, signature_text); !written) return written;
  // The index last: a folder with an index is complete.
  if (auto written = platform::write_file_atomic(staging / kIndexName, index_text); !written) return written;
  platform::test_hooks::pause_at("knowledge-staged", nullptr);
  location = options.folder / std::to_string(index.version);
  // A folder of this version left by a killed update, or damaged: it is not in use (current
  // names an older one, or rollback would have refused), so it is replaced.
  if (fs::exists(location, ec)) fs::remove_all(location, ec);
  if (auto renamed = platform::rename_with_retry(staging, location); !renamed) return renamed;
  platform::test_hooks::pause_at("knowledge-renamed", nullptr);
  if (auto written = platform::write_file_atomic(options.folder / kCurrentName, fmt::format("{}\n", index.version)); !written) return written;
  platform::test_hooks::pause_at("knowledge-pointer-written", nullptr);
  return {};
}

}  // namespace

std::optional<std::string> resolve_feed(const std::optional<std::string>& flag) {
  if (flag && !flag->empty()) return flag;
  if (auto env = platform::get_env(kFeedVariable); env && !env->empty()) return env;
  if (!kDefaultFeed.empty()) return std::string(kDefaultFeed);
  return std::nullopt;
}

Result<UpdateResult> update(const UpdateOptions& options) {
  auto index_text = read_from(options, kIndexName, kMaxIndexBytes);
  if (!index_text) return std::unexpected(index_text.error());
  auto signature_text = read_from(options, kSignatureName, kMaxSignatureBytes);
  if (!signature_text) return std::unexpected(signature_text.error());
  auto index = verify_index(*index_text, *signature_text, trusted_roots());
  if (!index) return std::unexpected(index.error());
  if (auto fresh = check_fresh(*index, *signature_text, options.at); !fresh) return std::unexpected(fresh.error());

  const Bundle in_use = load(options.folder, options.at);
  UpdateResult result;
  result.from_version = in_use.index.version;
  result.to_version = index->version;
  if (index->version < in_use.index.version) {
    return refuse(Refusal::rollback, ErrorKind::integrity,
                  fmt::format("The feed offers knowledge bundle {}, older than bundle {} in use ({})", index->version, in_use.index.version,
                              in_use.compiled_in ? "compiled in" : "installed"),
                  "A feed that goes back in time is stale or replayed by someone in the way; nothing was changed.");
  }
  if (index->version == in_use.index.version) {
    result.up_to_date = true;
    return result;
  }

  std::map<std::string, std::string> files;
  for (const auto& entry : index->files) {
    // Held to the size the signed index gives: a longer answer is cut off there.
    auto content = read_from(options, entry.name, entry.size);
    if (!content) {
      if (refusal_of(content.error()) == Refusal::too_large) {
        return refuse(Refusal::mismatch, ErrorKind::integrity,
                      fmt::format("{} is longer than the {} bytes the signed index gives it", entry.name, entry.size),
                      "The file does not belong to this index (mixed or altered); nothing was changed.");
      }
      return std::unexpected(content.error());
    }
    if (auto ok = check_file(entry, *content); !ok) return std::unexpected(ok.error());
    files.emplace(entry.name, std::move(*content));
  }

  std::vector<std::string> names;
  for (const auto& entry : index->files) names.push_back(entry.name);
  for (const auto& entry : in_use.index.files) {
    if (index->file(entry.name) == nullptr) names.push_back(entry.name);
  }
  auto before = [&](std::string_view name) -> std::optional<std::string> {
    if (!in_use.compiled_in) {
      if (auto it = in_use.files.find(name); it != in_use.files.end()) return it->second;
      return std::nullopt;
    }
    if (in_use.index.file(name) == nullptr) return std::nullopt;
    auto text = embedded::find(name);
    return text ? std::optional<std::string>(std::string(*text)) : std::nullopt;
  };
  auto after = [&](std::string_view name) -> std::optional<std::string> {
    if (auto it = files.find(std::string(name)); it != files.end()) return it->second;
    return std::nullopt;
  };
  result.changes = diff_files(before, after, names);
  if (options.check_only) return result;

  if (auto installed = install(options, *index, *index_text, *signature_text, files, result.location); !installed)
    return std::unexpected(installed.error());
  result.installed = true;
  spdlog::info("knowledge bundle {} installed in {}", index->version, path_to_utf8(result.location));
  return result;
}

}  // namespace zcuda::knowledge
