#pragma once
// Safe extraction of zip and tar.gz archives (libarchive). An archive is checked as a whole
// before a byte is written: one hostile entry anywhere refuses all of it, like a digest mismatch.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::archive {

enum class Format { zip, tar_gz };

// What a scan found; sizes count regular files inside `root` only.
struct Scan {
  std::uint64_t entries = 0;            // every entry of the archive
  std::uint64_t installed_entries = 0;  // those inside root, which extraction writes
  std::uint64_t installed_bytes = 0;
};

// One written file, folder or link, relative to the destination with '/' separators.
struct WrittenEntry {
  enum class Type { file, directory, symlink };
  std::string path;
  Type type = Type::file;
  std::uint64_t size = 0;
  std::string sha256;       // files only: lowercase hex of what was written
  std::string link_target;  // symlinks only
  bool operator==(const WrittenEntry&) const = default;
};

struct Extracted {
  Scan scan;
  std::vector<WrittenEntry> entries;  // in archive order (on Windows links, written as copies, come last)
};

// Bounds on what an archive may unpack to, so that a hostile one (a zip bomb, millions of empty
// entries) is refused instead of filling the disk. Far above any real ZLUDA or LibTorch archive
// (LibTorch 2.3.0+cu118 for Windows: 2.7 GB packed, about 3x that unpacked).
struct Limits {
  std::uint64_t max_entries = 500'000;
  std::uint64_t max_bytes = 32ull << 30;  // unpacked, all files together
  // Unpacked bytes per byte of archive read so far, once more than `ratio_from` bytes are out.
  std::uint64_t max_ratio = 200;
  std::uint64_t ratio_from = 64ull << 20;
};

struct ExtractOptions {
  Limits limits;
  std::optional<std::string> root;            // folder inside the archive whose contents are extracted
  const std::atomic<bool>* cancel = nullptr;  // stops between blocks; ErrorKind::interrupted
  bool check_free_space = true;               // refuse before writing when the disk lacks room
  // extract(): how many threads extract a zip's files at once, each a share of them; 0 chooses
  // from the cores and the archive's size. A tar.gz, or a zip holding links, takes one.
  std::size_t workers = 0;
  // After each entry is written. A file's sha256 is not known yet there (it is hashed on another
  // thread); the entries extract() returns have it.
  std::function<void(const WrittenEntry&)> on_entry;
};

// Reads every entry header and refuses the archive (ErrorKind::integrity, naming the entry) if
// any entry has an absolute path, a drive letter, a ".." component, a backslash or ':', a link
// leading outside its extraction root, a device, fifo or socket type, or a name that repeats
// another (case-insensitively, as Windows sees it), or more entries or declared bytes than
// `limits` allow. A root missing from the archive is ErrorKind::invalid_input.
Result<Scan> scan(const std::filesystem::path& file, Format format, const std::optional<std::string>& root, const Limits& limits = {});

// Scans, then extracts the contents of `root` (or everything) into `destination`, which must not
// exist yet. Files are hashed as they are written; the bytes written are held to
// `options.limits` as they come (a header may understate them). On any failure `destination` is
// removed.
Result<Extracted> extract(const std::filesystem::path& file, Format format, const std::filesystem::path& destination, const ExtractOptions& options);

// The bytes of an archive as they arrive (a download in progress). read() fills up to `size`
// bytes, waiting while more can still come; 0 means the end; an error means the bytes stopped
// coming for good or were replaced.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual Result<std::size_t> read(void* buffer, std::size_t size) = 0;
};

// Extracts while reading `streams`, front to back, into `destination` (which must not exist). The
// streams are readers of the same bytes (the same growing download, each from its start): a zip is
// extracted by one worker per stream, each writing a share of its entries and skipping the data of
// the others'. A tar.gz, or any archive on Windows (where links become copies of their files),
// uses the first stream only. Every worker checks each entry header as it arrives (the same checks
// as scan); files and folders are written and hashed as their bytes arrive, and links are made
// only once the whole archive has passed, so a refusal found late has made no link. A zip is read
// by its local headers: call confirm_zip with the complete file afterwards. There is no free-space
// check before writing (the sizes are not known yet). `label` names the archive in messages. The
// entries come back in archive order. On failure `destination` is removed.
Result<Extracted> extract_streams(const std::vector<Stream*>& streams, Format format, const std::filesystem::path& label,
                                  const std::filesystem::path& destination, const ExtractOptions& options);

// How many workers suit a zip of `bytes` on this machine: one per core, at most 8, and no more
// than one per 8 MiB (threads gain a small archive nothing).
std::size_t suggested_workers(std::uint64_t bytes);

// Checks a zip that extract_streams read against its central directory, which is what other tools
// read: the same entries inside root with the same types, sizes and link targets, and the scan's
// checks over the central directory's names. ErrorKind::integrity naming an entry when not.
Status confirm_zip(const std::filesystem::path& file, const Extracted& extracted, const std::optional<std::string>& root);

}  // namespace zcuda::archive
