#pragma once
// Which backend serves each AMD GPU: native ROCm PyTorch or ZLUDA, on Windows and on Linux.
// The data is manifests/backends.json (docs/manifest-format.md), every row with its sources;
// how zcuda decides from it is docs/backends.md.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <zcuda/base/error.hpp>
#include <zcuda/detect/profile.hpp>
#include <zcuda/platform/os.hpp>

namespace zcuda::backends {

// TheRock's readiness of a gfx target on one OS (SUPPORTED_GPUS.md's columns): all three ticks
// are "release-ready", Build Passing and Sanity Tested "preview", Build Passing alone
// "build-only"; "none": the table does not list the target.
enum class RocmStatus { release_ready, preview, build_only, none };
std::string_view to_string(RocmStatus status);

// A HIP SDK version's Windows table for a gfx: "sdk" (runtime and libraries), "runtime" (the
// runtime only: no rocBLAS and friends), "none" (listed as unsupported).
enum class HipSdkSupport { sdk, runtime, none };
std::string_view to_string(HipSdkSupport support);

struct SourceRef {
  std::string key;
  std::string url;   // https:// address, with the commit where it is a repository's file
  std::string date;  // of the version read, when known
  std::string what;  // what it says
};

// A way to install ROCm PyTorch: a pip index with a [device-gfx] extra, or a folder of wheels.
struct Channel {
  std::string id;
  std::vector<platform::Os> os;
  std::optional<std::string> index_url;
  std::optional<std::string> wheel_folder;
  std::vector<std::string> packages;  // "{gfx}" stands for the target
  std::optional<std::vector<std::string>> python;
  std::optional<std::string> min_driver;
  std::vector<std::string> sources;
  std::string notes;
};

struct ZludaSetup {
  std::string id;
  std::string family;  // "upstream" or "lshqqytiger" (family's words)
  std::optional<std::string> hip_sdk;
  std::optional<std::string> min_driver;
  std::optional<std::string> archive;
  std::vector<std::string> sources;
  std::string notes;
};

struct RocmTorch {
  RocmStatus status = RocmStatus::none;
  std::optional<std::string> extra;  // "device-gfx1100"; absent: no wheel for it
  std::string source;
  std::string note;
};

struct Arch {
  std::string gfx;
  std::string cards;
  std::optional<RocmTorch> windows;
  std::optional<RocmTorch> linux;
  std::vector<std::string> native_pytorch_on_windows_by;  // source keys of applications that install native ROCm torch for it
  std::map<std::string, HipSdkSupport> hip_sdk;           // HIP SDK version -> its table's row; absent: not listed or not captured
  bool zluda_upstream = false;                            // vosen/ZLUDA supports it
  std::vector<std::string> zluda_windows;                 // ZludaSetup ids that serve it on Windows
  std::vector<std::string> sources;
  std::string note;

  const std::optional<RocmTorch>& rocm(platform::Os os) const { return os == platform::Os::windows ? windows : linux; }
};

struct Table {
  std::string checked;
  std::map<std::string, SourceRef> sources;
  std::map<std::string, std::string> hip_sdk_tables;  // HIP SDK version -> source key
  std::vector<Channel> channels;
  std::string advice_channel;
  std::map<std::string, ZludaSetup> zluda_setups;
  std::vector<Arch> archs;

  const Arch* find(std::string_view gfx) const;
  const Channel* channel(std::string_view id) const;
  const SourceRef* source(std::string_view key) const;
};

// Parses and validates the backends data: every arch row, channel and setup names its sources,
// every key it names exists, every source has an https:// address. Errors are invalid_input
// with the JSON path of the problem.
Result<Table> parse_table(std::string_view json_text);
// The embedded manifests/backends.json (parsed once). A malformed file is zcuda's bug: internal.
Result<const Table*> embedded_table();

enum class Backend { native_rocm, zluda, none };
std::string_view to_string(Backend backend);

// For one AMD GPU on one OS: what serves PyTorch applications, what serves CUDA-only programs, why.
struct Advice {
  std::string gpu;  // the GPU's name
  std::string gfx;  // empty when unknown
  std::optional<int> hip_index;
  platform::Os os = platform::Os::linux;
  bool known = false;  // the gfx has a row in the data

  Backend pytorch = Backend::none;
  std::string pytorch_basis;  // "release-ready", "preview", "build-only", "zluda", "unknown"
  std::string pytorch_reason;
  std::vector<std::string> pytorch_install;  // pip arguments for native ROCm (the index and packages)
  std::optional<std::vector<std::string>> python;

  Backend cuda_only = Backend::zluda;
  std::vector<ZludaSetup> zluda;  // the setups that serve it on this OS (upstream first where it serves)
  std::string cuda_only_reason;
  std::vector<std::string> notes;    // HIP SDK limits and the like
  std::vector<std::string> sources;  // addresses behind the advice
};

// Advice for every AMD GPU of the profile, for the profile's OS.
std::vector<Advice> advise(const detect::Profile& profile, const Table& table);
// For one gfx (empty: unknown) on one OS.
Advice advise_gfx(std::string_view gfx, platform::Os os, const Table& table);

void to_json(nlohmann::json& out, const Advice& advice);

}  // namespace zcuda::backends
