#include <zcuda/install/install.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/archive/archive.hpp>
#include <zcuda/base/error_json.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/install/receipt.hpp>
#include <zcuda/platform/file_lock.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/platform/test_hooks.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>

#include "follow.hpp"
#include "layout.hpp"

namespace zcuda::install {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool cancelled(const Options& options) { return options.cancel != nullptr && options.cancel->load(); }

Outcome outcome_for(const PlanItem& item) {
  const auto& a = item.artifact;
  Outcome o;
  o.id = a.id;
  o.component = a.component;
  o.version = a.version;
  o.destination = item.destination;
  o.url = a.url;
  o.size = a.size;
  o.sha256 = a.sha256;
  o.license = a.license;
  return o;
}

void notice(const Options& options, const std::string& text) {
  if (options.on_notice) options.on_notice(text);
}

// Copies a verified single-file artifact ("archive": "none") into the temporary folder.
Result<std::vector<archive::WrittenEntry>> place_single_file(const manifest::Artifact& a, const fs::path& file, const fs::path& temp) {
  std::error_code ec;
  if (!fs::create_directory(temp, ec))
    return std::unexpected(io_error("create folder", temp, ec ? ec : std::make_error_code(std::errc::file_exists)));
  const fs::path target = temp / fs::path(std::u8string(a.file_name.begin(), a.file_name.end()));
  fs::copy_file(file, target, ec);
  if (ec) {
    fs::remove_all(temp, ec);
    return std::unexpected(io_error("copy", file, ec).with_note(fmt::format("to: {}", target)));
  }
  archive::WrittenEntry entry;
  entry.path = a.file_name;
  entry.size = fs::file_size(target, ec);
  entry.sha256 = a.sha256;  // the cache verified exactly these bytes
  return std::vector<archive::WrittenEntry>{entry};
}

Status check_expected(const manifest::Artifact& a, const fs::path& dir) {
  for (const auto& expected : a.expected_files) {
    std::error_code ec;
    if (!fs::exists(dir / path_from_utf8(expected), ec)) {
      Error e{ErrorKind::invalid_input,
              fmt::format("{} does not contain the expected file {}", a.id, expected),
              "The manifest's \"root\" or \"expected_files\" does not match the archive; nothing was installed.",
              {}};
      return std::unexpected(std::move(e));
    }
  }
  return {};
}

// Puts `temp` in place of `dest` with renames only: an existing version is first moved aside
// (to a sibling the next run removes), so `dest` is always either absent or complete.
Status swap_into_place(const home::Home& home, const manifest::Artifact& a, const fs::path& temp, const fs::path& dest) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dest, ec))) {
    const fs::path old = layout::temp_sibling(home, a.component, a.version, "old");
    if (auto moved = platform::rename_with_retry(dest, old); !moved) return moved;
    if (auto placed = platform::rename_with_retry(temp, dest); !placed) return placed;
    fs::remove_all(old, ec);
    if (ec) spdlog::warn("could not remove the replaced {}: {} (the next install removes it)", path_to_utf8(old), ec.message());
    return {};
  }
  return platform::rename_with_retry(temp, dest);
}

// Whether the archive is extracted while it downloads: an archive of pinned size fetched over
// HTTP(S) that is not in the cache yet. Offline folders, file:// sources and cached files are read afterwards,
// as fast local reads gain nothing. Windows stays sequential for now (a file that another
// handle is still writing is not read there yet).
bool extract_while_downloading(const manifest::Artifact& a, const fetch::Cache& cache, const Options& options) {
  if (a.archive == manifest::ArchiveKind::none || options.fetch.offline_dir) return false;
  // Without a pinned size (a --url runtime) nothing bounds the bytes but the digest, and that is
  // known only at the end: such an archive is extracted once it has verified.
  if (!a.size) return false;
  if (platform::current_os() == platform::Os::windows) return false;
  if (!a.url.starts_with("http://") && !a.url.starts_with("https://")) return false;
  std::error_code ec;
  return !fs::exists(cache.verified_path(a.sha256), ec);
}

archive::Format format_of(const manifest::Artifact& a) {
  return a.archive == manifest::ArchiveKind::zip ? archive::Format::zip : archive::Format::tar_gz;
}

// The download runs on a second thread while this one extracts from its partial file into
// `temp`; a zip by several workers, each following the partial file with a reader of its own and
// writing a share of the entries (the others' data it reads past without inflating). Nothing
// counts until the digest has verified: a failed download, or bytes that changed under the
// extraction (a restart from zero), end the same way as in the sequential path (the error, or an
// extraction again from the verified file). A zip's local headers are then confirmed against its
// central directory.
Result<std::vector<archive::WrittenEntry>> fetch_and_extract(const fetch::Request& request, const fetch::Cache& cache, fetch::Options fetch_options,
                                                             const manifest::Artifact& a, const fs::path& temp,
                                                             const archive::ExtractOptions& extract_options, Outcome& out) {
  detail::DownloadState state;
  fetch_options.on_discard = [&state] { state.discards.fetch_add(1); };
  // Without a size pin the archive's size is unknown: one worker, as for a small archive.
  std::size_t workers = extract_options.workers > 0 ? extract_options.workers : archive::suggested_workers(a.size.value_or(0));
  if (a.archive != manifest::ArchiveKind::zip) workers = 1;
  std::vector<std::unique_ptr<detail::FollowedFile>> followers;
  std::vector<archive::Stream*> streams;
  for (std::size_t k = 0; k < workers; ++k) {
    followers.push_back(
        std::make_unique<detail::FollowedFile>(cache.partial_path(a.sha256), cache.verified_path(a.sha256), state, fetch_options.cancel));
    streams.push_back(followers.back().get());
  }
  std::optional<Result<fetch::Fetched>> fetched;
  const auto started = Clock::now();
  std::thread fetching([&] {
    fetched = fetch::fetch(request, cache, fetch_options);
    out.fetch_seconds = seconds_since(started);
    state.ok.store(fetched->has_value());
    state.done.store(true);
  });
  auto extracted = archive::extract_streams(streams, format_of(a), fs::path(a.file_name), temp, extract_options);
  fetching.join();
  std::error_code ec;
  auto abandon = [&](Error error) -> Result<std::vector<archive::WrittenEntry>> {
    fs::remove_all(temp, ec);
    return std::unexpected(std::move(error));
  };
  if (!*fetched) return abandon(fetched->error());
  out.from_cache = (*fetched)->from_cache;
  out.bytes_transferred = (*fetched)->bytes_transferred;
  out.source = (*fetched)->source;
  const fs::path file = (*fetched)->file;
  if (std::ranges::any_of(followers, [](const auto& follower) { return follower->restarted(); })) {
    spdlog::info("the download of {} started over while it was extracted; extracting the verified file again", a.id);
    fs::remove_all(temp, ec);
    auto again = archive::extract(file, format_of(a), temp, extract_options);
    if (!again) return std::unexpected(again.error());
    return std::move(again->entries);
  }
  if (!extracted) return std::unexpected(extracted.error());  // extract_streams removed temp
  if (a.archive == manifest::ArchiveKind::zip) {
    if (auto confirmed = archive::confirm_zip(file, *extracted, a.root); !confirmed) return abandon(confirmed.error());
  }
  spdlog::info("{} extracted while it downloaded ({} entries)", a.id, extracted->entries.size());
  return std::move(extracted->entries);
}

// Fetches, extracts into a temporary sibling (during the download when it comes over HTTP),
// checks, renames into place, writes the receipt, then points "current" at it.
Status fresh_install(const PlanItem& item, const home::Home& home, const Options& options, Outcome& out) {
  const auto& a = item.artifact;
  const auto fetch_started = Clock::now();
  fetch::Request request{{a.url}, a.sha256, a.size, a.file_name, std::nullopt};
  if (!a.size) request.max_size = options.unpinned_max_bytes;
  request.urls.insert(request.urls.end(), a.mirrors.begin(), a.mirrors.end());
  fetch::Options fetch_options = options.fetch;
  if (fetch_options.cancel == nullptr) fetch_options.cancel = options.cancel;
  const fetch::Cache cache(layout::cache_dir(home));

  const fs::path temp = layout::temp_sibling(home, a.component, a.version, "tmp");
  std::error_code ec;
  fs::create_directories(temp.parent_path(), ec);
  if (ec) return std::unexpected(io_error("create folder", temp.parent_path(), ec));
  archive::ExtractOptions extract_options;
  extract_options.root = a.root;
  extract_options.cancel = options.cancel;
  extract_options.workers = options.extraction_workers;
  bool first = true;
  extract_options.on_entry = [&](const archive::WrittenEntry&) {
    if (first) platform::test_hooks::pause_at("extracting", options.cancel);
    first = false;
  };

  Result<std::vector<archive::WrittenEntry>> entries;
  auto extract_started = Clock::now();
  if (extract_while_downloading(a, cache, options)) {
    entries = fetch_and_extract(request, cache, fetch_options, a, temp, extract_options, out);
    if (entries) platform::test_hooks::pause_at("fetched", options.cancel);
  } else {
    auto fetched = fetch::fetch(request, cache, fetch_options);
    out.fetch_seconds = seconds_since(fetch_started);
    if (!fetched) return std::unexpected(fetched.error());
    out.from_cache = fetched->from_cache;
    out.bytes_transferred = fetched->bytes_transferred;
    out.source = fetched->source;
    platform::test_hooks::pause_at("fetched", options.cancel);
    if (cancelled(options)) return fail(ErrorKind::interrupted, "Interrupted", "Run the command again; the verified download is kept in the cache.");
    extract_started = Clock::now();
    if (a.archive == manifest::ArchiveKind::none) {
      entries = place_single_file(a, fetched->file, temp);
    } else {
      auto extracted = archive::extract(fetched->file, format_of(a), temp, extract_options);
      if (extracted)
        entries = std::move(extracted->entries);
      else
        entries = std::unexpected(extracted.error());
    }
  }
  if (!entries) return std::unexpected(entries.error());

  // From here on the temporary folder exists; remove it on every early return.
  auto abandon = [&](Error error) {
    fs::remove_all(temp, ec);
    return std::unexpected(std::move(error));
  };
  platform::test_hooks::pause_at("extracted", options.cancel);
  if (cancelled(options))
    return abandon(Error{ErrorKind::interrupted, "Interrupted", "Run the command again; the verified download is kept in the cache.", {}});
  if (auto expected = check_expected(a, temp); !expected) return abandon(expected.error());

  Receipt receipt = make_receipt(a, std::move(*entries), out.source);
  out.files = receipt.files.size();
  out.bytes = total_bytes(receipt);
  if (auto placed = swap_into_place(home, a, temp, item.destination); !placed) return abandon(placed.error());
  platform::test_hooks::pause_at("renamed", options.cancel);
  if (auto written = write_receipt(layout::receipt_path(home, a.component, a.version), receipt); !written) return written;
  platform::test_hooks::pause_at("receipt-written", options.cancel);
  if (item.becomes_current) {
    if (auto pointed = layout::write_pointer(home, a.component, a.version); !pointed) return pointed;
  }
  platform::test_hooks::pause_at("pointer-written", options.cancel);
  out.extract_seconds = seconds_since(extract_started);
  return {};
}

// Decides from the receipt whether anything must be done; fills `out` when nothing must.
// Returns the paths needing repair (empty: installed and intact), or nullopt: not installed.
Result<std::optional<std::vector<std::string>>> installed_state(const PlanItem& item, const home::Home& home, bool full, Outcome& out) {
  const auto& a = item.artifact;
  auto receipt = read_receipt(layout::receipt_path(home, a.component, a.version));
  std::error_code ec;
  if (!receipt || !same_artifact(*receipt, a) || !fs::is_directory(item.destination, ec)) return std::optional<std::vector<std::string>>{};
  out.files = receipt->files.size();
  out.bytes = total_bytes(*receipt);
  out.source = receipt->source;
  if (full) {
    auto bad = full_check(*receipt, item.destination);
    if (!bad) return std::unexpected(bad.error());
    return std::optional(std::move(*bad));
  }
  return std::optional(quick_check(*receipt, item.destination));
}

Outcome install_one(const PlanItem& item, const home::Home& home, const Options& options) {
  const auto started = Clock::now();
  Outcome out = outcome_for(item);
  auto state = installed_state(item, home, options.repair, out);
  if (!state) {
    out.state = State::failed;
    out.error = state.error();
    return out;
  }
  if (*state && (*state)->empty()) {
    out.state = State::already_installed;
    out.reason = options.repair ? fmt::format("all {} entries re-hashed and intact", out.files)
                                : fmt::format("receipt matches; {} entries present with their sizes", out.files);
    if (!options.dry_run && item.becomes_current) {
      if (auto pointed = layout::write_pointer(home, item.artifact.component, item.artifact.version); !pointed) {
        out.state = State::failed;
        out.error = pointed.error();
      }
    }
    out.total_seconds = seconds_since(started);
    return out;
  }
  const bool repairing = state->has_value();
  if (repairing) out.repaired_files = **state;
  if (options.dry_run) {
    out.state = State::planned;
    out.reason = repairing ? fmt::format("would repair {} entries", out.repaired_files.size()) : "would install";
    return out;
  }
  notice(options, fmt::format("{} {} ({}): license {}", item.artifact.component, item.artifact.version, item.artifact.id, item.artifact.license));
  if (auto done = fresh_install(item, home, options, out); !done) {
    out.state = State::failed;
    out.error = done.error();
  } else {
    out.state = repairing ? State::repaired : State::installed;
    if (repairing) out.reason = fmt::format("{} entries were missing or differed", out.repaired_files.size());
  }
  out.total_seconds = seconds_since(started);
  return out;
}

Result<platform::FileLock> take_lock(const home::Home& home, const Options& options) {
  std::error_code ec;
  fs::create_directories(home.root, ec);
  platform::LockWait how;
  how.wait = options.wait_for_lock;
  how.cancel = options.cancel;
  how.on_wait = [&](std::optional<long> holder) {
    notice(options, holder ? fmt::format("waiting for another zcuda install (pid {}) to finish", *holder)
                           : std::string("waiting for another zcuda install to finish"));
  };
  auto lock = platform::lock_file(layout::lock_path(home), how);
  if (!lock && lock.error().kind == ErrorKind::locked) {
    Error e = lock.error();
    std::string pid;
    for (const auto& note : e.notes) {
      if (note.starts_with("holder pid: ")) pid = note.substr(12);
    }
    e.message = pid.empty() ? "Another zcuda install is running" : fmt::format("Another zcuda install (pid {}) is running", pid);
    e.hint = "Wait for it to finish, or run without --no-wait to wait for it.";
    return std::unexpected(std::move(e));
  }
  return lock;
}

}  // namespace

std::string_view to_string(State state) {
  switch (state) {
    case State::planned:
      return "planned";
    case State::installed:
      return "installed";
    case State::already_installed:
      return "already-installed";
    case State::repaired:
      return "repaired";
    case State::skipped:
      return "skipped";
    case State::failed:
      return "failed";
    case State::removed:
      return "removed";
  }
  return "?";
}

Result<Report> run(const Plan& plan, const home::Home& home, const Options& options) {
  Report report;
  platform::FileLock lock;
  if (!options.dry_run) {
    auto taken = take_lock(home, options);
    if (!taken) return std::unexpected(taken.error());
    lock = std::move(*taken);
    platform::test_hooks::pause_at("locked", options.cancel);
    layout::remove_leftovers(home);
  }
  for (const auto& item : plan.items) {
    if (!item.selected) {
      Outcome out = outcome_for(item);
      out.state = State::skipped;
      out.reason = item.skip_reason;
      report.outcomes.push_back(std::move(out));
      continue;
    }
    if (cancelled(options)) {
      Outcome out = outcome_for(item);
      out.state = State::failed;
      out.error = Error{ErrorKind::interrupted, "Interrupted before it started", "Run the command again.", {}};
      if (!report.first_error) report.first_error = out.error;
      report.outcomes.push_back(std::move(out));
      continue;
    }
    Outcome out = install_one(item, home, options);
    if (out.state == State::failed && !report.first_error) report.first_error = out.error;
    report.outcomes.push_back(std::move(out));
  }
  return report;
}

nlohmann::json to_json(const Outcome& o) {
  nlohmann::json j = {{"id", o.id},
                      {"component", o.component},
                      {"version", o.version},
                      {"state", to_string(o.state)},
                      {"destination", path_to_utf8(o.destination)},
                      {"url", o.url},
                      {"size", o.size ? nlohmann::json(*o.size) : nlohmann::json(nullptr)},
                      {"sha256", o.sha256},
                      {"license", o.license}};
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (o.state == State::installed || o.state == State::repaired || o.state == State::already_installed || o.state == State::removed) {
    j["files"] = o.files;
    j["bytes"] = o.bytes;
  }
  if (o.state == State::installed || o.state == State::repaired) {
    j["source"] = o.source;
    j["from_cache"] = o.from_cache;
    j["bytes_transferred"] = o.bytes_transferred;
    j["timings"] = {{"fetch_seconds", o.fetch_seconds}, {"extract_seconds", o.extract_seconds}, {"total_seconds", o.total_seconds}};
  }
  if (o.state == State::repaired) j["repaired_files"] = o.repaired_files;
  if (o.error) {
    j["error"] = *o.error;
  }
  return j;
}

}  // namespace zcuda::install
