#pragma once
// Which shared libraries a program asks for: the import tables of PE files (imports and delay
// imports) and the dynamic section of ELF files (DT_NEEDED, DT_RUNPATH, DT_RPATH); for PE also
// the names a DLL exports and its version resource (which build of what it is). The parsers
// read only what they need, check every offset against the file, cap every count, and answer
// malformed or hostile input with an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zcuda/base/error.hpp>

namespace zcuda::binfmt {

enum class Format { pe, elf };

// A PE version resource (RT_VERSION): the fixed file version and the first string table's
// values ("CompanyName", "ProductName", "FileDescription", "FileVersion", ...).
struct VersionInfo {
  std::optional<std::string> file_version;  // "major.minor.build.revision" from VS_FIXEDFILEINFO
  std::map<std::string, std::string> strings;
};

struct Imports {
  Format format = Format::elf;
  bool is_64bit = false;
  std::uint16_t machine = 0;              // PE: IMAGE_FILE_MACHINE_*; ELF: e_machine
  std::vector<std::string> needed;        // PE import table / ELF DT_NEEDED, in file order
  std::vector<std::string> delay_needed;  // PE delay-import table (loaded on first call)
  std::vector<std::string> runpath;       // ELF DT_RUNPATH entries, split at ':'
  std::vector<std::string> rpath;         // ELF DT_RPATH entries, split at ':'
  std::optional<std::string> manifest;    // PE: the embedded application manifest (RT_MANIFEST)
  std::vector<std::string> exports;       // PE: the export table's names, in table order
  std::optional<VersionInfo> version;     // PE: the version resource, when there is one
};

// Random access to the bytes of a binary: a file read on demand (a LibTorch DLL can be a
// gigabyte; only headers and tables are read) or a buffer in memory (tests, fuzzing).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Reads exactly `out.size()` bytes at `offset`; false when they are not all there.
  virtual bool read(std::uint64_t offset, std::span<std::byte> out) const = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  bool read(std::uint64_t offset, std::span<std::byte> out) const override;

 private:
  std::span<const std::byte> bytes_;
};

// What the first bytes say the file is; nullopt for anything else (scripts, data).
std::optional<Format> sniff(const ByteSource& source);

// Parse errors are ErrorKind::invalid_input and name what was wrong.
Result<Imports> parse_pe(const ByteSource& source);
Result<Imports> parse_elf(const ByteSource& source);
Result<Imports> parse(const ByteSource& source);  // by sniff(); invalid_input when neither

// Reads a file's imports. nullopt when the file is neither PE nor ELF; an error when it claims
// to be one but is malformed, or cannot be read.
Result<std::optional<Imports>> read_imports(const std::filesystem::path& file);

// CUDA device code (for `zcuda warmup`): an ELF section named ".nv_fatbin", a PE section named
// ".nv_fatb" (PE keeps 8 bytes of a section name; NVCC's Windows output uses that name), or a
// file that is a fat binary itself (nvcc -fatbin: the header magic at its start). Malformed
// headers are errors. The magics are upstream ZLUDA's (cuda_types/src/dark_api.rs): the fat
// binary header that starts the data, and the __fatBinC_Wrapper_t that points at it from the
// host code (.nvFatBinSegment), never at the start of a file.
inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1;
Result<bool> has_fatbin(const ByteSource& source);
// false for a file that is neither PE, ELF nor a fatbin.
Result<bool> file_has_fatbin(const std::filesystem::path& file);

// One image of a fat binary, from its entry header (FatbinFileHeader in upstream's
// cuda_types/src/dark_api.rs; walked as dark_api/src/fatbin.rs walks it): PTX text for a
// virtual architecture (compute_86), or machine code (an ELF cubin) for one real GPU (sm_86).
enum class ImageKind { ptx, cubin, other };
std::string_view to_string(ImageKind kind);  // "ptx", "cubin", "other"
enum class Compression { none, lz4, zstd };
std::string_view to_string(Compression compression);  // "none", "lz4", "zstd"

struct FatbinImage {
  ImageKind kind = ImageKind::other;
  std::uint32_t arch = 0;  // sm_version: 86 for sm_86 / compute_86
  Compression compression = Compression::none;
  std::uint64_t size = 0;  // the bytes it takes in the file (compressed when compressed)
  bool is_64bit = false;
  std::size_t fatbin = 0;  // which fat binary of the file it belongs to (0 for the first), one per translation unit
  // "compute_86" for PTX, "sm_86" for a cubin.
  std::string target() const;
};

// Every image of every fat binary in the file's .nv_fatbin / .nv_fatb section, or of the
// fatbin file itself, in file order; empty when there is none. Malformed headers are errors.
Result<std::vector<FatbinImage>> fatbin_images(const ByteSource& source);
Result<std::vector<FatbinImage>> file_fatbin_images(const std::filesystem::path& file);

}  // namespace zcuda::binfmt

namespace zcuda::binfmt {

// IMAGE_FILE_MACHINE_I386: a 32-bit x86 Windows program or DLL (ZLUDA's "32" folder serves these).
inline constexpr std::uint16_t kPeMachineI386 = 0x14c;
inline bool is_x86_32_pe(const Imports& imports) { return imports.format == Format::pe && !imports.is_64bit && imports.machine == kPeMachineI386; }

// The 40-character lowercase hexadecimal strings a file carries, each bounded by bytes that are
// not hexadecimal digits, in file order without repeats. ZLUDA's 32-bit nvcuda.dll and its
// zluda64_server.exe each embed the git commit they were built from (VERGEN_GIT_SHA) and refuse
// to work together when the two differ (zluda32/src/ipc.rs, read_git_version).
Result<std::vector<std::string>> embedded_commit_ids(const std::filesystem::path& file);

// Which of `wanted` (40-digit lowercase commit ids) the file holds anywhere, in file order
// without repeats, also inside a longer run of hex digits: a Rust string is not terminated, so
// the bytes beside an embedded commit may be digits too.
Result<std::vector<std::string>> known_commit_ids(const std::filesystem::path& file, const std::set<std::string>& wanted);

// Whether `file` holds `text` anywhere in its bytes.
Result<bool> file_contains(const std::filesystem::path& file, std::string_view text);

}  // namespace zcuda::binfmt
