#include <zcuda/archive/archive.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <vector>

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <zcuda/archive/native_names.hpp>
#include <zcuda/base/path_format.hpp>
#include <zcuda/platform/files.hpp>
#include <zcuda/platform/os.hpp>
#include <zcuda/base/path_text.hpp>
#include <zcuda/base/units.hpp>

#include "background_digests.hpp"
#include "entry_rules.hpp"
#include "zip_directory.hpp"

namespace zcuda::archive {

namespace fs = std::filesystem;
using detail::Kind;

namespace {

// libarchive reads the file in blocks this large: fewer system calls, and the zip reader can
// seek to the central directory instead of streaming through the whole file.
constexpr std::size_t kReadBlock = 1u << 20;

struct ReadFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
struct WriteFree {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
using Reader = std::unique_ptr<struct archive, ReadFree>;
using Writer = std::unique_ptr<struct archive, WriteFree>;

std::string_view describe(Format format) { return format == Format::zip ? "zip" : "tar.gz"; }

Error refused(const fs::path& file, std::string_view entry, std::string_view problem) {
  Error e{ErrorKind::integrity,
          fmt::format("Refused the archive {}: entry \"{}\" {}", file.filename(), entry, problem),
          "The archive is damaged or hostile, so nothing was extracted from it. Do not unpack it by hand; report where it came from.",
          {}};
  e.notes.push_back(fmt::format("archive: {}", file));
  return e;
}

Error damaged(const fs::path& file, struct archive* a) {
  const char* why = archive_error_string(a);
  Error e{ErrorKind::integrity,
          fmt::format("Could not read the archive {}: {}", file.filename(), why ? why : "unknown error"),
          "The file is damaged; delete it from the cache and run the command again.",
          {}};
  e.notes.push_back(fmt::format("archive: {}", file));
  return e;
}

// A reader for `format` and nothing else. A zip is read from its central directory when the file
// can seek, by its local headers front to back when it streams.
enum class Access { seekable, streamed };
Result<Reader> new_reader(Format format, Access access) {
  Reader reader(archive_read_new());
  if (!reader) return fail(ErrorKind::internal, "libarchive could not allocate a reader");
  if (format == Format::zip && access == Access::seekable) {
    archive_read_support_format_zip(reader.get());
  } else if (format == Format::zip) {
    archive_read_support_format_zip_streamable(reader.get());
  } else {
    archive_read_support_filter_gzip(reader.get());
    archive_read_support_format_tar(reader.get());
  }
  return reader;
}

Result<Reader> open_reader(const fs::path& file, Format format) {
  auto made = new_reader(format, Access::seekable);
  if (!made) return std::unexpected(made.error());
  Reader reader = std::move(*made);
  int rc = libarchive_names::open_read(reader.get(), file.c_str(), kReadBlock);
  if (rc != ARCHIVE_OK) {
    int err = archive_errno(reader.get());
    if (err == ENOENT || err == EACCES || err == EISDIR) {
      return std::unexpected(io_error("open", file, std::error_code(err, std::generic_category())));
    }
    Error e{ErrorKind::invalid_input,
            fmt::format("{} is not a {} archive: {}", file.filename(), describe(format),
                        archive_error_string(reader.get()) ? archive_error_string(reader.get()) : "unrecognized"),
            "Check the \"archive\" field of the manifest entry.",
            {}};
    return std::unexpected(std::move(e));
  }
  return reader;
}

// Where libarchive writes an entry (or the file a hard link points at), given as the file system
// takes names: UTF-16 on Windows, bytes elsewhere. Its UTF-8 setters would convert through the C
// locale, which cannot hold non-ASCII names (a home folder like /home/josé).
enum class Name { path, hardlink_target };
void set_destination(struct archive_entry* entry, Name which, const fs::path& target) {
  if (which == Name::hardlink_target) {
    libarchive_names::set_hardlink(entry, target.c_str());
  } else {
    libarchive_names::set_pathname(entry, target.c_str());
  }
}

const char* entry_name(struct archive_entry* entry) {
  const char* name = archive_entry_pathname_utf8(entry);
  return name ? name : archive_entry_pathname(entry);
}

struct ScanResult {
  Scan scan;
  detail::EntrySet set;
  bool has_links = false;  // symbolic or hard links: extracted by one worker, in order
};

// Checks one entry header and adds it to the set. Returns false for an entry that names the
// extraction folder itself ("./", which tar writes for `tar -C dir .`) and is skipped.
Result<bool> check_entry(const fs::path& file, struct archive_entry* entry, const std::optional<std::string>& root, ScanResult& result,
                         const Limits& limits) {
  ++result.scan.entries;
  if (result.scan.entries > limits.max_entries) {
    return fail(ErrorKind::integrity, fmt::format("The archive {} has more than {} entries; refused", file.filename(), limits.max_entries),
                "No ZLUDA or LibTorch archive comes near that: it is not the file you meant (or a hostile one). Nothing was installed.");
  }
  const char* raw_name = entry_name(entry);
  if (raw_name == nullptr) return std::unexpected(refused(file, fmt::format("#{}", result.scan.entries), "has no name"));
  std::string raw = raw_name;
  auto name = detail::check_name(raw);
  if (!name.problem.empty()) return std::unexpected(refused(file, raw, name.problem));

  detail::Record record{raw, name.normalized, Kind::file, {}};
  const char* hardlink = archive_entry_hardlink_utf8(entry);
  if (hardlink == nullptr) hardlink = archive_entry_hardlink(entry);
  const auto type = archive_entry_filetype(entry);
  if (hardlink != nullptr) {
    auto target = detail::check_name(hardlink);
    if (!target.problem.empty()) return std::unexpected(refused(file, raw, fmt::format("is a hard link whose target {}", target.problem)));
    record.kind = Kind::hardlink;
    record.target = target.normalized;
    result.has_links = true;
  } else if (type == AE_IFREG) {
    record.kind = Kind::file;
  } else if (type == AE_IFDIR) {
    record.kind = Kind::directory;
  } else if (type == AE_IFLNK) {
    const char* target = archive_entry_symlink_utf8(entry);
    if (target == nullptr) target = archive_entry_symlink(entry);
    std::string text = target ? target : "";
    if (auto problem = detail::check_link_text(text); !problem.empty()) {
      return std::unexpected(refused(file, raw, fmt::format("is a link whose target \"{}\" {}", text, problem)));
    }
    record.kind = Kind::symlink;
    record.target = text;
    result.has_links = true;
  } else {
    const char* what = type == AE_IFCHR    ? "is a character device"
                       : type == AE_IFBLK  ? "is a block device"
                       : type == AE_IFIFO  ? "is a fifo"
                       : type == AE_IFSOCK ? "is a socket"
                                           : "has an unknown type";
    return std::unexpected(refused(file, raw, what));
  }
  if (record.path.empty()) {
    if (record.kind == Kind::directory) return false;
    return std::unexpected(refused(file, raw, "names the extraction folder itself"));
  }
  auto inside = detail::relative_to_root(record.path, root);
  if (inside && !inside->empty()) {
    ++result.scan.installed_entries;
    if (record.kind == Kind::file && archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0) {
      result.scan.installed_bytes += static_cast<std::uint64_t>(archive_entry_size(entry));
      if (result.scan.installed_bytes > limits.max_bytes) {
        return fail(ErrorKind::integrity,
                    fmt::format("The archive {} unpacks to more than {}; refused", file.filename(), format_bytes(limits.max_bytes)),
                    "No ZLUDA or LibTorch archive comes near that: it is not the file you meant (or a hostile one). Nothing was installed.");
      }
    }
  }
  if (auto problem = result.set.add(std::move(record)); !problem.empty()) return std::unexpected(refused(file, raw, problem));
  return true;
}

// What needs the whole set of entries (see EntrySet::finish).
Status finish_checks(const fs::path& file, const ScanResult& result, const std::optional<std::string>& root) {
  if (auto refusal = result.set.finish(root)) {
    if (refusal->root_missing) {
      return fail(ErrorKind::invalid_input, fmt::format("The archive {} has no folder \"{}\" to install", file.filename(), *root),
                  "Check the \"root\" field of the manifest entry against the archive's contents.");
    }
    return std::unexpected(refused(file, refusal->entry, refusal->problem));
  }
  return {};
}

Result<ScanResult> scan_all(const fs::path& file, Format format, const std::optional<std::string>& root, const Limits& limits) {
  auto reader = open_reader(file, format);
  if (!reader) return std::unexpected(reader.error());
  ScanResult result;
  struct archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(reader->get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) return std::unexpected(damaged(file, reader->get()));
    auto checked = check_entry(file, entry, root, result, limits);
    if (!checked) return std::unexpected(checked.error());
    // Zip's central directory already gave the header; only streamed formats read the data.
    if (archive_read_data_skip(reader->get()) < ARCHIVE_WARN) return std::unexpected(damaged(file, reader->get()));
  }
  if (auto finished = finish_checks(file, result, root); !finished) return std::unexpected(finished.error());
  return result;
}

Status check_space(const fs::path& destination, const Scan& scan) {
  std::error_code ec;
  auto info = fs::space(destination.parent_path(), ec);
  if (ec) return {};  // unknown: let the writes report a full disk if it comes to that
  // Every file rounds up to a block; count one 4 KiB block per entry on top of the bytes.
  const std::uint64_t needed = scan.installed_bytes + scan.installed_entries * 4096u;
  if (info.available >= needed) return {};
  Error e{ErrorKind::io,
          fmt::format("Not enough free space to extract into {}: {} needed, {} available", destination.parent_path(), format_bytes(needed),
                      format_bytes(info.available)),
          "Free some space (or choose another folder with --home) and run the command again; nothing was written.",
          {}};
  return std::unexpected(std::move(e));
}

Error write_failed(struct archive* writer, const fs::path& path) {
  int err = archive_errno(writer);
  Error e = io_error("write", path, std::error_code(err ? err : EIO, std::generic_category()));
  if (const char* why = archive_error_string(writer)) e.notes.push_back(fmt::format("libarchive: {}", why));
  return e;
}

// Which entries one of several extraction workers writes: those whose position in the archive
// is `worker` modulo `workers`. The others' data it skips (a seek in a zip).
struct Share {
  std::size_t worker = 0;
  std::size_t workers = 1;
  const std::atomic<bool>* stop = nullptr;        // another worker failed
  std::mutex* on_entry_mutex = nullptr;           // on_entry is called from one worker at a time
  std::atomic<std::uint64_t>* written = nullptr;  // bytes all workers wrote, for the limits
};

class Extraction {
 public:
  Extraction(const fs::path& file, const fs::path& destination, const ExtractOptions& options, Share share = {})
      : file_(file), destination_(destination), options_(options), share_(share) {}

  // Position in the archive of each entry run() added to out.entries, in the same order.
  const std::vector<std::size_t>& positions() const { return positions_; }

  // With `checking`, the extraction streams (no scan came before it): each header is checked as
  // it arrives, and links are made only after the whole archive has passed every check, so no
  // link exists while a later entry could still be refused.
  Status run(struct archive* reader, struct archive* writer, Extracted& out, ScanResult* checking = nullptr) {
    struct archive_entry* entry = nullptr;
    std::vector<WrittenEntry> links;  // Windows: written last, as copies
    std::vector<std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)>> deferred;
    for (std::size_t position = 0;; ++position) {
      if (cancelled()) return interrupted();
      int rc = archive_read_next_header(reader, &entry);
      if (rc == ARCHIVE_EOF) break;
      if (rc < ARCHIVE_WARN) return std::unexpected(damaged(file_, reader));
      position_ = position;
      // Every worker checks every header, so each has seen the whole archive pass before it
      // makes a link.
      if (checking != nullptr) {
        auto checked = check_entry(file_, entry, options_.root, *checking, options_.limits);
        if (!checked) return std::unexpected(checked.error());
        if (!*checked) continue;
      }
      if (position % share_.workers != share_.worker) {
        if (archive_read_data_skip(reader) < ARCHIVE_WARN) return std::unexpected(damaged(file_, reader));
        continue;
      }
      // The checks accepted every name, so these cannot fail here.
      auto name = detail::check_name(entry_name(entry));
      auto inside = detail::relative_to_root(name.normalized, options_.root);
      if (!inside || inside->empty()) continue;
      const bool link = archive_entry_filetype(entry) == AE_IFLNK || archive_entry_hardlink(entry) != nullptr;
      if (checking != nullptr && link) {
        deferred.emplace_back(archive_entry_clone(entry), &archive_entry_free);
        continue;
      }
      if (auto written = write_entry(reader, writer, entry, *inside, out, links); !written) return written;
    }
    if (checking != nullptr) {
      if (auto finished = finish_checks(file_, *checking, options_.root); !finished) return finished;
      for (auto& e : deferred) {
        auto inside = detail::relative_to_root(detail::check_name(entry_name(e.get())).normalized, options_.root);
        if (auto written = write_entry(nullptr, writer, e.get(), *inside, out, links); !written) return written;
      }
    }
    settle_digests(out);
    return copy_links(links, out);
  }

 private:
  // Writes one entry (its data from `reader`; links have none) and records it.
  Status write_entry(struct archive* reader, struct archive* writer, struct archive_entry* entry, const std::string& inside, Extracted& out,
                     std::vector<WrittenEntry>& links) {
    WrittenEntry written;
    written.path = inside;
    const fs::path target = destination_ / zcuda::path_from_utf8(inside);
    // Absolute destination names: the checks refused absolute entries, which is why
    // ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS stays off (it would refuse these rewritten ones).
    set_destination(entry, Name::path, target);
    // The hard link's target as the archive names it, relative to root (the checks passed it).
    std::optional<std::string> hardlink;
    const char* hardlink_raw = archive_entry_hardlink_utf8(entry);
    if (hardlink_raw == nullptr) hardlink_raw = archive_entry_hardlink(entry);
    if (hardlink_raw != nullptr) {
      auto link = detail::check_name(hardlink_raw);
      hardlink = detail::relative_to_root(link.normalized, options_.root).value_or(link.normalized);
      const fs::path link_target = destination_ / zcuda::path_from_utf8(*hardlink);
      set_destination(entry, Name::hardlink_target, link_target);
    }
    const auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) written.type = WrittenEntry::Type::directory;
    if (type == AE_IFLNK && !hardlink) {
      written.type = WrittenEntry::Type::symlink;
      const char* link = archive_entry_symlink_utf8(entry);
      written.link_target = link ? link : archive_entry_symlink(entry);
      // Windows lets only administrators (or Developer Mode) make symbolic links, and libarchive
      // may skip one without an error: the file the link names is copied instead.
      if (platform::current_os() == platform::Os::windows) {
        links.push_back(std::move(written));
        return {};
      }
    }

    if (archive_write_header(writer, entry) < ARCHIVE_WARN) return std::unexpected(write_failed(writer, target));
    if (written.type == WrittenEntry::Type::file && !hardlink) {
      const std::uint64_t declared =
          archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0 ? static_cast<std::uint64_t>(archive_entry_size(entry)) : 0;
      auto file = copy_data(reader, writer, target, declared, written);
      if (!file) return std::unexpected(file.error());
      pending_.emplace_back(out.entries.size(), *file);
    }
    if (archive_write_finish_entry(writer) < ARCHIVE_WARN) return std::unexpected(write_failed(writer, target));
    if (hardlink) {
      // A hard link shares its target's bytes: record them so the receipt is complete.
      settle_digests(out);
      for (const auto& e : out.entries) {
        if (e.path == *hardlink) {
          written.size = e.size;
          written.sha256 = e.sha256;
        }
      }
    }
    notify(written);
    positions_.push_back(position_);
    out.entries.push_back(std::move(written));
    return {};
  }

  void notify(const WrittenEntry& written) const {
    if (!options_.on_entry) return;
    if (share_.on_entry_mutex == nullptr) return options_.on_entry(written);
    std::lock_guard lock(*share_.on_entry_mutex);
    options_.on_entry(written);
  }

  bool cancelled() const { return (options_.cancel != nullptr && options_.cancel->load()) || (share_.stop != nullptr && share_.stop->load()); }
  std::unexpected<Error> interrupted() const {
    return fail(ErrorKind::interrupted, "Extraction was interrupted", "Run the command again; the verified download is kept in the cache.");
  }

  // Copies one file's data and queues it for hashing; returns its number in digests_.
  Result<std::size_t> copy_data(struct archive* reader, struct archive* writer, const fs::path& target, std::uint64_t declared,
                                WrittenEntry& written) {
    const std::size_t file = digests_.begin();
    std::uint64_t hashed = 0;
    // Sparse tar entries leave holes between blocks; they read back as zeros, so hash zeros.
    auto hash_zeros_to = [&](std::uint64_t end) {
      digests_.add_zeros(end - hashed);
      hashed = end;
    };
    const void* block = nullptr;
    std::size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
      int rc = archive_read_data_block(reader, &block, &size, &offset);
      if (rc == ARCHIVE_EOF) break;
      if (rc < ARCHIVE_WARN) return std::unexpected(damaged(file_, reader));
      if (cancelled()) return interrupted();
      const auto at = static_cast<std::uint64_t>(offset);
      if (at > hashed) hash_zeros_to(at);
      if (auto bounded = count_written(reader, size); !bounded) return std::unexpected(bounded.error());
      digests_.add(block, size);
      hashed = at + size;
      if (archive_write_data_block(writer, block, size, offset) < ARCHIVE_WARN) return std::unexpected(write_failed(writer, target));
    }
    if (declared > hashed) hash_zeros_to(declared);
    digests_.end();
    written.size = hashed;
    return file;
  }

  // Holds the bytes written (by every worker) to the limits: a header may understate a file's size,
  // and a streamed archive has no scan before it.
  Status count_written(struct archive* reader, std::size_t size) {
    own_written_ += size;
    const std::uint64_t total = share_.written != nullptr ? share_.written->fetch_add(size) + size : own_written_;
    const Limits& limits = options_.limits;
    if (total > limits.max_bytes) {
      return fail(ErrorKind::integrity,
                  fmt::format("The archive {} unpacks to more than {}; refused", file_.filename(), format_bytes(limits.max_bytes)),
                  "No ZLUDA or LibTorch archive comes near that: it is not the file you meant (or a hostile one). Nothing was installed.");
    }
    const auto read = archive_filter_bytes(reader, -1);
    const std::uint64_t packed = read > 0 ? static_cast<std::uint64_t>(read) : 0;
    if (total > limits.ratio_from && total / std::max<std::uint64_t>(packed, 1) > limits.max_ratio) {
      return fail(ErrorKind::integrity,
                  fmt::format("The archive {} unpacks to more than {} times its size ({} from {}); refused as a zip bomb", file_.filename(),
                              limits.max_ratio, format_bytes(total), format_bytes(packed)),
                  "Real ZLUDA and LibTorch archives unpack to a few times their size. Nothing was installed.");
    }
    return {};
  }

  // Waits for the files hashed so far and records their digests.
  void settle_digests(Extracted& out) {
    if (pending_.empty()) return;
    digests_.drain();
    for (const auto& [entry, file] : pending_) out.entries[entry].sha256 = digests_.digest(file);
    pending_.clear();
  }

  // Each link becomes a copy of the file it names (through other links of the archive), and is
  // recorded as that file. The scan made sure every link stays inside the destination.
  Status copy_links(std::vector<WrittenEntry>& links, Extracted& out) {
    std::map<std::string, std::string> link_of;  // path -> target text
    for (const auto& link : links) link_of[link.path] = link.link_target;
    for (auto& link : links) {
      std::string at = link.path;
      const WrittenEntry* file = nullptr;
      for (int hops = 0; hops < 40 && file == nullptr; ++hops) {
        const fs::path next = (path_from_utf8(at).parent_path() / path_from_utf8(link_of.at(at))).lexically_normal();
        const std::u8string generic = next.generic_u8string();
        at.assign(generic.begin(), generic.end());
        for (const auto& e : out.entries) {
          if (e.path == at) file = &e;
        }
        if (file == nullptr && !link_of.contains(at)) break;
      }
      if (file == nullptr || file->type != WrittenEntry::Type::file) {
        return fail(
            ErrorKind::unsupported,
            fmt::format("The archive's link {} -> {} names no file; links to folders cannot be installed on Windows", link.path, link.link_target),
            "Install this archive on Linux, or use one made for Windows.");
      }
      const fs::path source = destination_ / path_from_utf8(file->path);
      const fs::path target = destination_ / path_from_utf8(link.path);
      std::error_code ec;
      // A folder that holds only links (upstream's trace/) was never made by an extracted file.
      fs::create_directories(target.parent_path(), ec);
      if (ec) return std::unexpected(io_error("create folder", target.parent_path(), ec));
      fs::copy_file(source, target, ec);
      if (ec) return std::unexpected(io_error("copy", source, ec).with_note(fmt::format("target: {}", target)));
      link.type = WrittenEntry::Type::file;
      link.size = file->size;
      link.sha256 = file->sha256;
      link.link_target.clear();
      notify(link);
    }
    for (auto& link : links) {
      positions_.push_back(position_);
      out.entries.push_back(std::move(link));
    }
    return {};
  }

  const fs::path& file_;
  const fs::path& destination_;
  const ExtractOptions& options_;
  Share share_;
  std::size_t position_ = 0;       // of the entry being read
  std::uint64_t own_written_ = 0;  // file bytes this worker wrote
  std::vector<std::size_t> positions_;
  detail::BackgroundDigests digests_;
  std::vector<std::pair<std::size_t, std::size_t>> pending_;  // (index in out.entries, file number) not yet settled
};

// One worker's entries and where each stands in the archive.
struct Part {
  Extracted out;
  std::vector<std::size_t> positions;
};

Result<Part> extract_part(const fs::path& file, Format format, const fs::path& destination, const ExtractOptions& options, Share share) {
  auto reader = open_reader(file, format);
  if (!reader) return std::unexpected(reader.error());
  Writer writer(archive_write_disk_new());
  if (!writer) return fail(ErrorKind::internal, "libarchive could not allocate a disk writer");
  // Defence in depth behind the scan: libarchive itself refuses ".." and writes through links.
  archive_write_disk_set_options(writer.get(), ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  Part part;
  Extraction extraction(file, destination, options, share);
  if (auto ran = extraction.run(reader->get(), writer.get(), part.out); !ran) return std::unexpected(ran.error());
  if (archive_write_close(writer.get()) < ARCHIVE_WARN) return std::unexpected(write_failed(writer.get(), destination));
  part.positions = extraction.positions();
  return part;
}

// A zip's entries are separate deflate streams that a seekable reader reaches directly, so
// several workers can each inflate, write and hash a share of them. A tar.gz is one gzip stream:
// one worker. Links stay with one worker too, so each is made after what it names.
std::size_t extraction_workers(Format format, const ScanResult& scanned, std::size_t asked) {
  if (format != Format::zip || scanned.has_links) return 1;
  return asked > 0 ? asked : suggested_workers(scanned.scan.installed_bytes);
}

// Runs `workers` extractions side by side, each extract_share(its share), and merges their entries
// into archive order. The first real failure stops the others. One worker runs on this thread.
template <class ExtractShare>
Result<Extracted> run_workers(std::size_t workers, ExtractShare extract_share) {
  if (workers <= 1) {
    auto part = extract_share(Share{});
    if (!part) return std::unexpected(std::move(part.error()));
    return std::move(part->out);
  }
  std::atomic<bool> stop{false};
  std::mutex on_entry_mutex;
  std::atomic<std::uint64_t> written{0};
  std::vector<std::optional<Result<Part>>> parts(workers);
  {
    std::vector<std::jthread> threads;
    for (std::size_t k = 0; k < workers; ++k) {
      threads.emplace_back([&, k] {
        parts[k] = extract_share(Share{k, workers, &stop, &on_entry_mutex, &written});
        if (!*parts[k]) stop.store(true);
      });
    }
  }
  // The first real failure; the others stopped because of it and say "interrupted".
  const Error* failure = nullptr;
  for (const auto& part : parts) {
    if (*part) continue;
    if (failure == nullptr || failure->kind == ErrorKind::interrupted) failure = &part->error();
  }
  if (failure != nullptr) return std::unexpected(*failure);
  std::vector<std::pair<std::size_t, WrittenEntry>> ordered;
  for (auto& part : parts) {
    for (std::size_t i = 0; i < (*part)->out.entries.size(); ++i) ordered.emplace_back((*part)->positions[i], std::move((*part)->out.entries[i]));
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Extracted out;
  out.scan = (*parts.front())->out.scan;  // every worker scanned every header
  out.entries.reserve(ordered.size());
  for (auto& [position, entry] : ordered) out.entries.push_back(std::move(entry));
  return out;
}

}  // namespace

std::size_t suggested_workers(std::uint64_t bytes) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  // Beyond a few workers the disk, not inflating, sets the pace.
  const auto by_size = static_cast<std::size_t>(std::min<std::uint64_t>(bytes / (8u << 20) + 1, 8));
  return std::min<std::size_t>({cores, 8, by_size});
}

Result<Scan> scan(const fs::path& file, Format format, const std::optional<std::string>& root, const Limits& limits) {
  auto result = scan_all(file, format, root, limits);
  if (!result) return std::unexpected(result.error());
  return result->scan;
}

Result<Extracted> extract(const fs::path& file, Format format, const fs::path& destination, const ExtractOptions& options) {
  auto scanned = scan_all(file, format, options.root, options.limits);
  if (!scanned) return std::unexpected(scanned.error());
  if (options.check_free_space) {
    if (auto space = check_space(destination, scanned->scan); !space) return std::unexpected(space.error());
  }
  std::error_code ec;
  if (!fs::create_directory(destination, ec)) {
    if (!ec) ec = std::make_error_code(std::errc::file_exists);
    return std::unexpected(io_error("create folder", destination, ec));
  }
  const std::size_t workers = extraction_workers(format, *scanned, options.workers);
  auto result = run_workers(workers, [&](Share share) { return extract_part(file, format, destination, options, share); });
  if (!result) {
    fs::remove_all(destination, ec);
    return result;
  }
  result->scan = scanned->scan;
  return result;
}

namespace {

struct StreamState {
  Stream* stream;
  std::vector<char> buffer = std::vector<char>(kReadBlock);
  std::optional<Error> error;  // what the stream said when it stopped
};

la_ssize_t read_stream(struct archive* a, void* data, const void** block) {
  auto& state = *static_cast<StreamState*>(data);
  auto got = state.stream->read(state.buffer.data(), state.buffer.size());
  if (!got) {
    state.error = got.error();
    archive_set_error(a, EIO, "%s", got.error().message.c_str());
    return -1;
  }
  *block = state.buffer.data();
  return static_cast<la_ssize_t>(*got);
}

}  // namespace

namespace {

// One worker's extraction from its own reader of the stream's bytes.
Result<Part> stream_part(Stream& stream, Format format, const fs::path& label, const fs::path& destination, const ExtractOptions& options,
                         Share share) {
  StreamState state{&stream, std::vector<char>(kReadBlock), std::nullopt};
  // A zip by its local headers; confirm_zip compares them with the central directory.
  auto made = new_reader(format, Access::streamed);
  if (!made) return std::unexpected(made.error());
  Reader reader = std::move(*made);
  if (archive_read_open(reader.get(), &state, nullptr, &read_stream, nullptr) != ARCHIVE_OK) {
    if (state.error) return std::unexpected(*state.error);
    return fail(ErrorKind::invalid_input,
                fmt::format("{} is not a {} archive: {}", label.filename(), describe(format),
                            archive_error_string(reader.get()) ? archive_error_string(reader.get()) : "unrecognized"),
                "Check the \"archive\" field of the manifest entry.");
  }
  Writer writer(archive_write_disk_new());
  if (!writer) return fail(ErrorKind::internal, "libarchive could not allocate a disk writer");
  archive_write_disk_set_options(writer.get(), ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  Part part;
  ScanResult checking;
  Extraction extraction(label, destination, options, share);
  auto ran = extraction.run(reader.get(), writer.get(), part.out, &checking);
  if (!ran) return std::unexpected(state.error ? *state.error : ran.error());
  if (archive_write_close(writer.get()) < ARCHIVE_WARN) return std::unexpected(write_failed(writer.get(), destination));
  part.out.scan = checking.scan;
  part.positions = extraction.positions();
  return part;
}

}  // namespace

Result<Extracted> extract_streams(const std::vector<Stream*>& streams, Format format, const fs::path& label, const fs::path& destination,
                                  const ExtractOptions& options) {
  std::error_code ec;
  if (!fs::create_directory(destination, ec)) {
    if (!ec) ec = std::make_error_code(std::errc::file_exists);
    return std::unexpected(io_error("create folder", destination, ec));
  }
  // A tar.gz is one gzip stream: every worker would inflate all of it. On Windows links become
  // copies of the files they name, which must all be in one worker's hands.
  const bool shareable = format == Format::zip && platform::current_os() != platform::Os::windows;
  const std::size_t workers = shareable ? streams.size() : 1;
  auto result = run_workers(workers, [&](Share share) { return stream_part(*streams[share.worker], format, label, destination, options, share); });
  if (!result) fs::remove_all(destination, ec);
  return result;
}

Status confirm_zip(const fs::path& file, const Extracted& extracted, const std::optional<std::string>& root) {
  auto directory = detail::read_central_directory(file);
  if (!directory) return std::unexpected(directory.error());
  if (!directory->problem.empty()) return std::unexpected(refused(file, directory->problem_entry, directory->problem));
  // Each entry inside root as a type and a size (a link's size is its target text's length).
  using Described = std::pair<WrittenEntry::Type, std::uint64_t>;
  std::map<std::string, Described> central;
  for (const auto& e : directory->entries) {
    auto name = detail::check_name(e.name);
    if (!name.problem.empty()) return std::unexpected(refused(file, e.name, name.problem));
    auto inside = detail::relative_to_root(name.normalized, root);
    if (!inside || inside->empty()) continue;
    const auto type = e.directory ? WrittenEntry::Type::directory : e.symlink ? WrittenEntry::Type::symlink : WrittenEntry::Type::file;
    central[*inside] = {type, e.directory ? 0 : e.size};
  }
  std::map<std::string, Described> local;
  for (const auto& e : extracted.entries) {
    const std::uint64_t size = e.type == WrittenEntry::Type::file ? e.size : e.type == WrittenEntry::Type::symlink ? e.link_target.size() : 0;
    local[e.path] = {e.type, size};
  }
  if (local == central) return {};
  // Name the first entry the two views disagree on.
  for (const auto& [path, d] : central) {
    auto it = local.find(path);
    if (it == local.end() || it->second != d) {
      return std::unexpected(refused(file, path, "is not the same in the zip's central directory as in its local headers"));
    }
  }
  for (const auto& [path, d] : local) {
    if (!central.contains(path)) return std::unexpected(refused(file, path, "has a local header but no central directory record"));
  }
  return std::unexpected(refused(file, "?", "differs between the zip's central directory and its local headers"));
}

}  // namespace zcuda::archive
